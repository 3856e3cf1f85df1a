import type { CliIo } from './io.js'
import { postgresPackage } from './drivers.js'

/** A PostgreSQL URL given on the command line or in the environment, and where it came from (for messages). */
export interface DatabaseUrl {
  readonly url: string
  /** `--database` or `$GATEHOUSE_DATABASE_URL`: what a message about the URL names. */
  readonly label: string
}

/** The environment variable a command reads the database URL from when `--database` is not given. */
export const DATABASE_ENV = 'GATEHOUSE_DATABASE_URL'

/**
 * The database URL of a command: `--database`, else $GATEHOUSE_DATABASE_URL
 * (an empty one counts as unset), else undefined. The URL is checked
 * (`GATEHOUSE_POSTGRES_INVALID_OPTIONS` naming the flag or the variable,
 * never the password) before anything connects.
 */
export async function databaseUrl (io: CliIo, flag: string | undefined): Promise<DatabaseUrl | undefined> {
  const fromEnv = io.env[DATABASE_ENV]
  const given = flag !== undefined
    ? { url: flag, label: '--database' }
    : fromEnv !== undefined && fromEnv !== '' ? { url: fromEnv, label: `$${DATABASE_ENV}` } : undefined
  if (given === undefined) return undefined
  ;(await postgresPackage()).checkPostgresUrl(given.url, given.label)
  return given
}

/** Where a database is, for output: host:port/database and the schema (and prefix), never a password. */
export async function databaseAddress (url: string, schema: string, tablePrefix: string): Promise<string> {
  const where = (await postgresPackage()).describeUrl(url)
  return `${where} (schema ${schema}${tablePrefix === '' ? '' : `, table prefix ${tablePrefix}`})`
}
