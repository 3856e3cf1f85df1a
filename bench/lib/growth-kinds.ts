// What the growth benchmark's runner (growth.ts) and its workers
// (growth-worker.ts) exchange.

/** The store kinds measured, one worker process per kind and size. */
export const KINDS = ['file-keys', 'memory-keys', 'file-users', 'memory-users', 'sessions'] as const
export type Kind = typeof KINDS[number]

/** A measured figure, or why there is none. */
export type Cell = number | { failed: string }

/**
 * What a worker sends back: its cells by row id (`'*'`: why the rows it did
 * not get to have no figure), or why the whole column failed.
 */
export type WorkerResult = { rows: Record<string, Cell> } | { failed: string }
