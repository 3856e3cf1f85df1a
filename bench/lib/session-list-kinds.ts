// What the session-list benchmark's runner (session-list.ts) and its
// workers (session-list-worker.ts) exchange.

/** The stores measured, one worker process each. */
export const LIST_STORES = ['memory', 'redis', 'pg'] as const
export type ListStore = typeof LIST_STORES[number]

/** What a worker is told, as JSON in its one argument. */
export interface ListWorkerConfig {
  store: ListStore
  /** Other users' sessions present at each column (growing). */
  sizes: number[]
  /** The run's own database (dropped by the runner at the end). */
  url: string
  redisUrl: string
  /** The Redis key prefix of this run. */
  redisPrefix: string
  /** listFor calls timed one at a time per size (Redis and PostgreSQL). */
  calls: number
}

/** A measured figure, a figure already written out, or why there is none. */
export type ListCell = number | string | { failed: string }

/** What a worker sends back: cells by `${row} ${size}`, and the plans (PostgreSQL) by size; or why it failed. */
export type ListWorkerResult = { cells: Record<string, ListCell>, plans: Record<string, string> } | { failed: string }
