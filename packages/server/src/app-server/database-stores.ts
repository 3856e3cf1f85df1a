import type { ApiKeyStore, LockoutStore, UserStore } from '@fastify-gatehouse/auth'
import { isPlainObject } from '@fastify-gatehouse/core'
import type { PostgresConnection, PostgresStoreOptions } from '@fastify-gatehouse/postgres'
import type { SessionStore } from '@fastify-gatehouse/session'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'

// @fastify-gatehouse/postgres (pg, kysely) loads only for a server given
// `database`: importing the server package never loads it.
const postgresPackage = async () => await import('@fastify-gatehouse/postgres')

/**
 * AppServer's `database` option, in its object form: a connection (`url`,
 * or a `pg` Pool of yours, which is never ended here), the options every
 * PostgreSQL store shares, and `migrate`.
 */
export type ServerDatabaseOptions = PostgresConnection & PostgresStoreOptions & {
  /**
   * Bring the schema up to date at boot instead of refusing a schema that
   * is behind (`GATEHOUSE_POSTGRES_SCHEMA_BEHIND`). Default: false.
   */
  migrate?: boolean
}

const KEYS = ['url', 'pool', 'schema', 'tablePrefix', 'migrate', 'connectTimeout', 'statementTimeout', 'poolSize']

/** Which stores the server needs from the database: those the caller did not give. */
export interface DatabaseRoles {
  users: boolean
  tokens: boolean
  sessions: boolean
  lockout: boolean
}

/** The stores opened for `database`, and how to close them all. */
export interface DatabaseStores {
  users?: UserStore
  tokens?: ApiKeyStore
  sessions?: SessionStore
  lockout?: LockoutStore
  /** Closes every store opened here (ends their pools; a pool you gave stays open). */
  close: () => Promise<void>
}

/**
 * Checks `database` (a URL or {@link ServerDatabaseOptions}) as the server
 * option it is: errors name `database` or `database.<key>`, never the
 * password. Loads the PostgreSQL package.
 */
export async function checkDatabaseOption (database: unknown): Promise<ServerDatabaseOptions> {
  const postgres = await postgresPackage()
  if (typeof database === 'string') return { url: postgres.checkPostgresUrl(database, 'database') }
  if (!isPlainObject(database)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('database', 'expected a postgres:// URL or { url | pool, schema?, tablePrefix?, migrate? }')
  for (const key of Object.keys(database)) {
    if (!KEYS.includes(key)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`database.${key}`, `unknown option (known: ${KEYS.join(', ')})`)
  }
  if ((database.url === undefined) === (database.pool === undefined)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('database', 'give exactly one of url and pool')
  if (database.url !== undefined) postgres.checkPostgresUrl(database.url, 'database.url')
  if (database.schema !== undefined) postgres.checkSchema(database.schema, 'database.schema')
  if (database.tablePrefix !== undefined) postgres.checkTablePrefix(database.tablePrefix, 'database.tablePrefix')
  if (database.migrate !== undefined && typeof database.migrate !== 'boolean') throw new GATEHOUSE_SERVER_INVALID_OPTIONS('database.migrate', 'expected true or false')
  // The pool and the numbers are checked by the stores, naming the store and the option.
  return database as unknown as ServerDatabaseOptions
}

/**
 * Opens the PostgreSQL stores `roles` asks for. With `migrate`, the schema
 * is brought up to date once, first (not by each store); then the stores
 * connect side by side, each checking the schema: one that is behind
 * rejects with `GATEHOUSE_POSTGRES_SCHEMA_BEHIND`, naming
 * `gatehouse migrate up`. When one fails, those already open are closed
 * before the error is passed on, so a failed boot leaves no pool behind.
 */
export async function openDatabaseStores (database: ServerDatabaseOptions, roles: DatabaseRoles): Promise<DatabaseStores> {
  const postgres = await postgresPackage()
  const { migrate, ...connection } = database
  if (migrate === true) await postgres.migrate(connection)
  const settings = { ...connection, migrate: false }
  const opening = {
    users: roles.users ? postgres.PostgresUserStore.connect(settings) : undefined,
    tokens: roles.tokens ? postgres.PostgresApiKeyStore.connect(settings) : undefined,
    sessions: roles.sessions ? postgres.PostgresSessionStore.connect(settings) : undefined,
    lockout: roles.lockout ? postgres.PostgresLockoutStore.connect(settings) : undefined
  }
  const entries = Object.entries(opening).filter(([, store]) => store !== undefined) as Array<[keyof typeof opening, Promise<{ close: () => Promise<void> }>]>
  const settled = await Promise.allSettled(entries.map(([, store]) => store))
  const opened = settled.flatMap((result) => result.status === 'fulfilled' ? [result.value] : [])
  const close = async (): Promise<void> => {
    await Promise.allSettled(opened.map(async (store) => { await store.close() }))
  }
  const failed = settled.find((result) => result.status === 'rejected')
  if (failed !== undefined) {
    await close()
    throw failed.reason
  }
  const stores: Record<string, unknown> = { close }
  entries.forEach(([role], i) => { stores[role] = (settled[i] as PromiseFulfilledResult<unknown>).value })
  return stores as unknown as DatabaseStores
}
