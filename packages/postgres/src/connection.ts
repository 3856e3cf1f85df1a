import pg from 'pg'
import { GATEHOUSE_POSTGRES_CONNECT, postgresUnavailable } from './errors.js'
import { describeUrl, type ResolvedPostgresOptions } from './options.js'

/** A pg Pool and whether the store opened it (and so must close it). */
export interface OpenedPool {
  readonly pool: pg.Pool
  readonly owned: boolean
}

/** What a pool made here is made of. */
export type PoolSettings = Pick<ResolvedPostgresOptions, 'connectTimeout' | 'statementTimeout' | 'poolSize'> & { readonly url: string }

/**
 * A pg Pool with Gatehouse's settings: it waits at most `connectTimeout`
 * for a connection and cancels statements after `statementTimeout` (the
 * server's `statement_timeout`, and the client's own read timeout a little
 * later for a server that stopped answering); a connection idle 30 s is
 * closed; its idle clients' `error` events are absorbed (each failed call
 * rejects on its own, and the pool replaces the client).
 */
export function newPool (settings: PoolSettings): pg.Pool {
  const pool = new pg.Pool({
    connectionString: settings.url,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.connectTimeout,
    statement_timeout: settings.statementTimeout,
    // D-POSTGRES-24: these bound each call, not a request (which may make several).
    query_timeout: settings.statementTimeout + 1000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'gatehouse'
  })
  pool.on('error', () => {})
  return pool
}

/** The pool a store was given, or one made from its URL ({@link newPool}), which the store then owns. */
export function openPool (options: ResolvedPostgresOptions): OpenedPool {
  if (options.pool !== undefined) return { pool: options.pool, owned: false }
  return { pool: newPool({ ...options, url: options.url! }), owned: true }
}

// SQLSTATE classes and codes that mean "the database cannot answer now",
// not "the statement is wrong": connection exceptions (08), shutdown and
// cannot-connect-now (57P01–57P03), a statement timeout (57014),
// insufficient resources (53), a read-only transaction (25006: a failover
// left the pool on a standby), and the transaction rollbacks a retry may
// clear (40001 serialization failure, 40P01 deadlock).
const UNAVAILABLE_STATE = /^(08|53)|^57P0[123]$|^57014$|^25006$|^40001$|^40P01$/
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE'])
// What pg throws without a code when a connection ends, is not made in
// time, or a reply does not come in time.
const UNAVAILABLE_MESSAGE = /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection error and is not queryable|Client was closed|Cannot use a pool after calling end/i

/** Whether `err` means the database is away or too slow (a 503), rather than a bad statement (a bug). */
export function isUnavailable (err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string' && (UNAVAILABLE_STATE.test(code) || UNAVAILABLE_ERRNO.has(code))) return true
  if (err instanceof AggregateError) return err.errors.some(isUnavailable)
  return err instanceof Error && UNAVAILABLE_MESSAGE.test(err.message)
}

/** Rethrows `err` as `GATEHOUSE_POSTGRES_UNAVAILABLE` (503) when the database is away; otherwise as it is. */
export function unavailableOr (err: unknown): never {
  throw isUnavailable(err) ? postgresUnavailable(err) : err
}

/** Where a pool leads, for messages: host:port/database, never a password. */
export function poolAddress (options: ResolvedPostgresOptions): string {
  if (options.url !== undefined) return describeUrl(options.url)
  const { connectionString, host, port, database } = (options.pool as unknown as { options?: { connectionString?: string, host?: string, port?: number, database?: string } }).options ?? {}
  // A pool made from a URL keeps it as connectionString, not as host/port/database.
  if (connectionString !== undefined && host === undefined && URL.canParse(connectionString)) return describeUrl(connectionString)
  return `${host ?? 'localhost'}:${port ?? 5432}/${database ?? '(default database)'}`
}

/**
 * Where a deployment's tables are, for messages: host:port/database, the
 * schema and a table prefix when there is one (the CLI's own spelling),
 * never a password.
 */
export function schemaAddress (options: ResolvedPostgresOptions): string {
  const { schema, tablePrefix } = options.names
  return `${poolAddress(options)} (schema ${schema}${tablePrefix === '' ? '' : `, table prefix ${tablePrefix}`})`
}

/**
 * Runs one round trip to prove the pool reaches the database; rejects with
 * `GATEHOUSE_POSTGRES_CONNECT` (naming `what` and the address) otherwise.
 */
export async function checkReachable (pool: pg.Pool, options: ResolvedPostgresOptions, what: string): Promise<void> {
  try {
    await pool.query('select 1')
  } catch (err) {
    throw new GATEHOUSE_POSTGRES_CONNECT(what, poolAddress(options), (err as Error).message, { cause: err })
  }
}
