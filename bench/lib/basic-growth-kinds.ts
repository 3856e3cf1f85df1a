// What the Basic growth benchmark's runner (basic-growth.ts) and its
// workers (basic-growth-worker.ts) exchange.

/** The kinds measured, one worker process per kind and size. */
export const KINDS = ['memory', 'file', 'postgres', 'cache', 'lockout'] as const
export type Kind = typeof KINDS[number]

/** What a worker is told. */
export interface WorkerConfig {
  readonly kind: Kind
  /** Users in the store (entries in the cache). */
  readonly n: number
  /** A temporary directory of the run's own (file stores). */
  readonly dir: string
  /** The PostgreSQL database holding n users (kind `postgres`). */
  readonly url?: string
}

/** A measured figure, or why there is none. */
export type Cell = number | { failed: string }

/** A worker's cells by row id (`'*'`: why the rows it did not get to have none), or why the whole column failed. */
export type WorkerResult = { rows: Record<string, Cell> } | { failed: string }
