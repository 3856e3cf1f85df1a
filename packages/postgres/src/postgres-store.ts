import type pg from 'pg'
import { checkReachable, isUnavailable, openPool, schemaAddress, unavailableOr } from './connection.js'
import { GATEHOUSE_POSTGRES_SCHEMA_AHEAD, GATEHOUSE_POSTGRES_SCHEMA_BEHIND } from './errors.js'
import { migrate } from './migrate.js'
import type { SqlNames } from './names.js'
import { resolvePostgresOptions, type PostgresConnection, type PostgresStoreOptions, type ResolvedPostgresOptions } from './options.js'
import { migrationStatus } from './schema-version.js'

/** What `connect()` of every PostgreSQL store takes besides the connection and the shared options. */
export interface ConnectOptions {
  /**
   * Bring the schema up to date on connect instead of refusing a schema
   * that is behind (`GATEHOUSE_POSTGRES_SCHEMA_BEHIND`). Default: false.
   */
  migrate?: boolean
}

/**
 * What the PostgreSQL stores share: the pool (opened from `{ url }` and then
 * closed by `close()`, or `{ pool }`, never closed here), the schema and
 * table names, the schema check at connect, and turning a database that is
 * away into `GATEHOUSE_POSTGRES_UNAVAILABLE` (503).
 */
export abstract class PostgresStore {
  protected readonly pool: pg.Pool
  protected readonly names: SqlNames
  protected readonly options: ResolvedPostgresOptions
  readonly #owned: boolean

  /**
   * @param extra option keys the subclass takes besides the shared ones
   */
  protected constructor (options: PostgresConnection & PostgresStoreOptions & ConnectOptions, what: string, extra: readonly string[] = []) {
    this.options = resolvePostgresOptions(options, what, ['migrate', ...extra])
    this.names = this.options.names
    const opened = openPool(this.options)
    this.pool = opened.pool
    this.#owned = opened.owned
  }

  /**
   * The body of the subclasses' `connect()`: proves the database answers,
   * then that its Gatehouse schema is this version's (migrating it first
   * when `migrate` is true); otherwise closes a pool the store opened and
   * rejects with `GATEHOUSE_POSTGRES_CONNECT`, `…_SCHEMA_BEHIND` or
   * `…_SCHEMA_AHEAD`, so a server fails at boot, not on a request.
   * D-POSTGRES-02.
   */
  protected static async connected<S extends PostgresStore> (store: S, settings: ConnectOptions): Promise<S> {
    try {
      await checkReachable(store.pool, store.options, store.options.store)
      let status = await migrationStatus(store.pool, store.names)
      if (status.pending.length > 0 && settings.migrate === true) {
        status = (await migrate({ pool: store.pool, schema: store.names.schema, tablePrefix: store.names.tablePrefix })).status
      }
      const where = schemaAddress(store.options)
      if (status.unknown.length > 0) throw new GATEHOUSE_POSTGRES_SCHEMA_AHEAD(where, status.unknown.join(', '))
      if (status.pending.length > 0) throw new GATEHOUSE_POSTGRES_SCHEMA_BEHIND(where, status.pending.join(', '))
    } catch (err) {
      await store.close()
      throw err
    }
    return store
  }

  /** The schema the store works in. */
  get schema (): string {
    return this.names.schema
  }

  /** The table-name prefix in use. */
  get tablePrefix (): string {
    return this.names.tablePrefix
  }

  // The one ending of an owned pool: a second close() (two shutdown paths)
  // waits for it instead of calling pool.end() again, which rejects.
  #closing: Promise<void> | undefined

  /** Ends the pool the store opened; a pool you gave is left open. Safe to call more than once. */
  async close (): Promise<void> {
    if (!this.#owned) return
    this.#closing ??= this.pool.ended ? Promise.resolve() : this.pool.end()
    await this.#closing
  }

  /** One statement; a database that is away becomes `GATEHOUSE_POSTGRES_UNAVAILABLE`. */
  protected async query<R extends pg.QueryResultRow = pg.QueryResultRow> (text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values)
    } catch (err) {
      return unavailableOr(err)
    }
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it
   * resolves, rolled back when it throws (nothing half-written). A broken
   * connection is discarded, not returned to the pool.
   */
  protected async transaction<T> (work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (err) {
      return unavailableOr(err)
    }
    let broken: Error | undefined
    // A checked-out client has no 'error' listener of the pool's: the server
    // ending the connection while no statement of ours runs (a shutdown, a
    // crash, pg_terminate_backend between two statements) would be an
    // unhandled 'error' event and end the process. The next statement then
    // fails on its own ("not queryable"), and the client is discarded.
    // D-POSTGRES-06.
    const onError = (err: Error): void => { broken = err }
    client.on('error', onError)
    try {
      await client.query('begin')
      const result = await work(client)
      await client.query('commit')
      return result
    } catch (err) {
      // A connection that failed for want of the database is dropped rather
      // than asked to roll back (a frozen server would make the rollback
      // wait a second timeout): the server rolls back a transaction whose
      // connection ends.
      if (broken === undefined && isUnavailable(err)) broken = err as Error
      if (broken === undefined) await client.query('rollback').catch((rollback: Error) => { broken = rollback })
      return unavailableOr(err)
    } finally {
      client.off('error', onError)
      client.release(broken)
    }
  }
}
