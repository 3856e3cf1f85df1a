import { Kysely, Migrator, PostgresDialect, type MigrationResult } from 'kysely'
import { checkReachable, isUnavailable, openPool, schemaAddress } from './connection.js'
import { GATEHOUSE_POSTGRES_MIGRATION, GATEHOUSE_POSTGRES_SCHEMA_AHEAD, postgresUnavailable } from './errors.js'
import { gatehouseMigrations } from './migrations/index.js'
import { resolvePostgresOptions, type PostgresConnection, type PostgresStoreOptions, type ResolvedPostgresOptions } from './options.js'
import { migrationStatus, type MigrationStatus } from './schema-version.js'

export type { MigrationStatus } from './schema-version.js'

/** Options of {@link migrate} and {@link migrationStatusOf}: a connection, the schema and the table prefix. */
export type MigrateOptions = PostgresConnection & Pick<PostgresStoreOptions, 'schema' | 'tablePrefix' | 'connectTimeout' | 'statementTimeout'>

/** What {@link migrate} did. */
export interface MigrateResult {
  readonly direction: 'up' | 'down'
  /** The migrations run (up) or undone (down), in the order it did them. */
  readonly done: readonly string[]
  /** Where the schema stands afterwards. */
  readonly status: MigrationStatus
}

function migrator (pool: import('pg').Pool, options: ResolvedPostgresOptions): Migrator {
  // Never destroyed: that would end the pool, which may be the caller's.
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) })
  const { names } = options
  return new Migrator({
    db,
    provider: { getMigrations: async () => gatehouseMigrations(names) },
    migrationTableSchema: names.schema,
    migrationTableName: `${names.tablePrefix}migrations`,
    migrationLockTableName: `${names.tablePrefix}migration_lock`
  })
}

async function withPool<T> (options: MigrateOptions, what: string, work: (pool: import('pg').Pool, resolved: ResolvedPostgresOptions) => Promise<T>): Promise<T> {
  // Migrations may rewrite tables: no statement timeout beyond an hour.
  const resolved = resolvePostgresOptions(options.pool === undefined ? { statementTimeout: 3_600_000, ...options } : options, what)
  const { pool, owned } = openPool(resolved)
  try {
    await checkReachable(pool, resolved, what)
    return await work(pool, resolved)
  } finally {
    if (owned) await pool.end().catch(() => {})
  }
}

/** Where the database's Gatehouse schema stands (`gatehouse migrate status`). */
export async function migrationStatusOf (options: MigrateOptions): Promise<MigrationStatus> {
  return await withPool(options, 'migrate', (pool, resolved) => migrationStatus(pool, resolved.names))
}

/**
 * Brings the Gatehouse schema up to this version (`'up'`, the default), or
 * undoes the latest migration (`'down'`). Each run holds Kysely's migration
 * lock and runs in one transaction: a failure leaves the schema as it was
 * (`GATEHOUSE_POSTGRES_MIGRATION`). Refuses a database migrated by a newer
 * version (`GATEHOUSE_POSTGRES_SCHEMA_AHEAD`).
 * D-POSTGRES-02.
 */
export async function migrate (options: MigrateOptions, direction: 'up' | 'down' = 'up'): Promise<MigrateResult> {
  if (direction !== 'up' && direction !== 'down') throw new GATEHOUSE_POSTGRES_MIGRATION(`unknown direction ${JSON.stringify(direction)} (expected "up" or "down")`)
  return await withPool(options, 'migrate', async (pool, resolved) => {
    const before = await migrationStatus(pool, resolved.names)
    if (before.unknown.length > 0) throw new GATEHOUSE_POSTGRES_SCHEMA_AHEAD(schemaAddress(resolved), before.unknown.join(', '))
    const run = migrator(pool, resolved)
    const { error, results } = direction === 'up' ? await run.migrateToLatest() : await run.migrateDown()
    if (error !== undefined) {
      if (isUnavailable(error)) throw postgresUnavailable(error)
      const failed = results?.find((r: MigrationResult) => r.status === 'Error')
      throw new GATEHOUSE_POSTGRES_MIGRATION(`${failed === undefined ? '' : `${failed.migrationName}: `}${(error as Error).message}`, { cause: error })
    }
    return Object.freeze({
      direction,
      done: Object.freeze((results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)),
      status: await migrationStatus(pool, resolved.names)
    })
  })
}
