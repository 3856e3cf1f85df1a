// What the PostgreSQL benchmark's runner (postgres.ts) and its workers
// (postgres-worker.ts) exchange.

/** The worker processes: one per part and table size (sessions once). */
export const PARTS = ['calls', 'memory-keys', 'memory-users', 'sessions'] as const
export type Part = typeof PARTS[number]

/** What a worker is told, as JSON in its one argument. */
export interface WorkerConfig {
  part: Part
  /** Rows of api_keys and of users in the database now. */
  n: number
  /** The benchmark's own database (dropped by the runner at the end). */
  url: string
  redisUrl: string
  /** The Redis key prefix of this run (the runner deletes its keys at the end). */
  redisPrefix: string
  /** A temporary directory for the file stores' files. */
  dir: string
  /** The password hash every seeded user has (DEFAULT_SCRYPT parameters). */
  passwordHash: string
  /** Calls of the uncached-latency loops. */
  misses: number
  /** Distinct keys or identities the memory parts go through. */
  touches: number
}

/** A measured figure (shown by the table's rounding), a figure already written out, or why there is none. */
export type Cell = number | string | { failed: string }

/**
 * What a worker sends back: its cells by row id (`'*'`: why the rows it did
 * not get to have no figure), or why the whole part failed.
 */
export type WorkerResult = { rows: Record<string, Cell> } | { failed: string }
