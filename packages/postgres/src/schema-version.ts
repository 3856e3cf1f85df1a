import type pg from 'pg'
import { gatehouseMigrations } from './migrations/index.js'
import { sqlNames, type SqlNames } from './names.js'

/** Where a database's Gatehouse schema stands against this version's migrations. */
export interface MigrationStatus {
  /** Migrations run in the database that this version knows, in order. */
  readonly applied: readonly string[]
  /** This version's migrations not run yet, in order. */
  readonly pending: readonly string[]
  /** Migrations run in the database that this version does not know (a newer Gatehouse ran them). */
  readonly unknown: readonly string[]
}

/** The names of this version's migrations, in the order they run. */
export const migrationNames: readonly string[] = Object.freeze(Object.keys(gatehouseMigrations(sqlNames('gatehouse', ''))).sort())

/** The table Kysely's Migrator keeps the names of run migrations in. */
export const migrationTable = (names: SqlNames): string => names.table('migrations')

/** Reads which migrations the database ran (none when the schema or the table does not exist yet). */
export async function migrationStatus (queryable: Pick<pg.Pool, 'query'>, names: SqlNames): Promise<MigrationStatus> {
  const table = migrationTable(names)
  const exists = await queryable.query<{ found: string | null }>('select to_regclass($1)::text as found', [table])
  const ran = exists.rows[0]?.found == null
    ? []
    : (await queryable.query<{ name: string }>(`select name from ${table} order by name`)).rows.map((row) => row.name)
  const known = new Set(migrationNames)
  const done = new Set(ran)
  return Object.freeze({
    applied: Object.freeze(ran.filter((name) => known.has(name))),
    pending: Object.freeze(migrationNames.filter((name) => !done.has(name))),
    unknown: Object.freeze(ran.filter((name) => !known.has(name)))
  })
}
