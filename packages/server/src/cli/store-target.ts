import { passwordPolicyDefaults, type ApiKeyStore, type ResolvedPasswordPolicy, type UserStore } from '@fastify-gatehouse/auth'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'
import { readConfig } from './config-file.js'
import { databaseUrl, DATABASE_ENV } from './database-flag.js'
import { postgresPackage } from './drivers.js'
import { UsageError, type CliIo } from './io.js'
import { commandStore, keysFile, usersFile } from './store-paths.js'

/** The options every store command takes (`parseArgs` form). */
export const STORE_FLAGS = {
  store: { type: 'string' },
  database: { type: 'string' },
  config: { type: 'string' },
  schema: { type: 'string' },
  'table-prefix': { type: 'string' }
} as const

/** What the store flags were given as. */
export interface StoreFlags {
  store?: string | undefined
  database?: string | undefined
  config?: string | undefined
  schema?: string | undefined
  'table-prefix'?: string | undefined
}

/** The usage lines of the store flags. */
export const STORE_FLAGS_USAGE = `Store: one of --store <dir> (default: $GATEHOUSE_STORE or ./.gatehouse)
       --database <postgres://user@host:port/db> [--schema s] [--table-prefix p] (default: $${DATABASE_ENV})
       --config <gatehouse.yaml> (its server_app.store)
A password in --database is visible to every user of the machine (ps): use $${DATABASE_ENV}.
`

/** Users and keys in a folder (users.json, keys.json); `created` when an adding command starts it. */
export interface FolderTarget { readonly kind: 'folder', readonly dir: string, readonly created: boolean }
/** Users and keys in PostgreSQL. */
export interface PostgresTarget {
  readonly kind: 'postgres'
  readonly url: string
  readonly schema: string
  readonly tablePrefix: string
}
export type StoreTarget = FolderTarget | PostgresTarget

/**
 * A store target and what a password set there must be: the config file's
 * `server_app.password_policy` with --config, else the defaults.
 */
export type CommandTarget = StoreTarget & { readonly passwordPolicy: ResolvedPasswordPolicy }

/**
 * Where a `users` or `keys` command works: `--store`, `--database` or
 * `--config` (at most one: two are a usage error), else
 * $GATEHOUSE_DATABASE_URL or $GATEHOUSE_STORE (both set is a usage error),
 * else ./.gatehouse. A folder follows D-CLI-05 (`adds`: the command may
 * start a store there); `what` names a command that takes PostgreSQL only
 * (a folder in --config's file is then an error). Everything is checked
 * before anything connects.
 */
export async function storeTarget (io: CliIo, flags: StoreFlags, adds: boolean, postgresOnly?: string): Promise<CommandTarget> {
  checkStoreFlags(flags)
  if (flags.config !== undefined) {
    const { path, stores, passwordPolicy } = await readConfig(io, flags.config)
    const users = stores.users
    if (users === undefined) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}: server_app.store`, 'not set: the file names no store for users and keys')
    if (users.kind === 'folder') {
      if (postgresOnly !== undefined) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}: server_app.store`, `is a folder: ${postgresOnly} works on PostgreSQL ({ postgres: … })`)
      return { kind: 'folder', ...await commandStore(io, users.dir, adds), passwordPolicy }
    }
    const { postgresDefaults } = await postgresPackage()
    return { kind: 'postgres', url: users.url, schema: users.schema ?? postgresDefaults.schema, tablePrefix: users.tablePrefix ?? postgresDefaults.tablePrefix, passwordPolicy }
  }
  // D-CLI-15: without --config, the CLI knows no deployment's policy: the defaults.
  const passwordPolicy = passwordPolicyDefaults
  if (flags.store === undefined) {
    const envStore = io.env.GATEHOUSE_STORE
    if (flags.database === undefined && envStore !== undefined && envStore !== '' && (io.env[DATABASE_ENV] ?? '') !== '') {
      throw new UsageError(`both $GATEHOUSE_STORE and $${DATABASE_ENV} are set: unset one, or say which with --store or --database`)
    }
    const database = await databaseUrl(io, flags.database)
    if (database !== undefined) {
      const postgres = await postgresPackage()
      return {
        kind: 'postgres',
        url: database.url,
        schema: postgres.checkSchema(flags.schema ?? postgres.postgresDefaults.schema, '--schema'),
        tablePrefix: postgres.checkTablePrefix(flags['table-prefix'] ?? postgres.postgresDefaults.tablePrefix, '--table-prefix'),
        passwordPolicy
      }
    }
    if (flags.schema !== undefined || flags['table-prefix'] !== undefined) throw new UsageError('--schema and --table-prefix go with --database')
  }
  return { kind: 'folder', ...await commandStore(io, flags.store, adds), passwordPolicy }
}

/** The store flags that cannot go together (a usage error naming them). */
export function checkStoreFlags (flags: StoreFlags): void {
  const given = (['store', 'database', 'config'] as const).filter((flag) => flags[flag] !== undefined)
  if (given.length > 1) throw new UsageError(`give one of --store, --database and --config, not ${given.map((flag) => `--${flag}`).join(' and ')}`)
  if ((flags.schema !== undefined || flags['table-prefix'] !== undefined) && (flags.store !== undefined || flags.config !== undefined)) {
    throw new UsageError(flags.config !== undefined
      ? '--schema and --table-prefix go with --database; with --config they come from server_app.store'
      : '--schema and --table-prefix go with --database, not --store')
  }
}

/** A user store a command opened, and how to let it go. */
export interface OpenedUserStore { readonly store: UserStore, close: () => Promise<void> }
/** A key store a command opened, and how to let it go. */
export interface OpenedKeyStore { readonly store: ApiKeyStore, close: () => Promise<void> }

/** The users of `target`: users.json in the folder, or the PostgreSQL table (its schema checked, never migrated). */
export async function openUserStore (target: StoreTarget): Promise<OpenedUserStore> {
  if (target.kind === 'folder') return { store: await FileUserStore.open(usersFile(target.dir)), close: async () => {} }
  const store = await (await postgresPackage()).PostgresUserStore.connect(connection(target))
  return { store, close: async () => { await store.close() } }
}

/** The API keys of `target`: keys.json in the folder, or the PostgreSQL table. */
export async function openKeyStore (target: StoreTarget): Promise<OpenedKeyStore> {
  if (target.kind === 'folder') {
    const store = await FileApiKeyStore.open(keysFile(target.dir))
    return { store, close: async () => { await store.close() } }
  }
  const store = await (await postgresPackage()).PostgresApiKeyStore.connect(connection(target))
  return { store, close: async () => { await store.close() } }
}

// A command makes a few statements: a small pool is plenty.
function connection (target: PostgresTarget) {
  return { url: target.url, schema: target.schema, tablePrefix: target.tablePrefix, poolSize: 2 }
}
