import type { ApiKeyStore, LockoutStore, UserStore } from '@fastify-gatehouse/auth'
import { isPlainObject } from '@fastify-gatehouse/core'
import type { PostgresCacheOptions, PostgresConnection, PostgresStoreOptions, SweepOptions } from '@fastify-gatehouse/postgres'
import type { SessionStore } from '@fastify-gatehouse/session'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'

// @fastify-gatehouse/postgres (pg, kysely) loads only for a server given
// `database`: importing the server package never loads it.
const postgresPackage = async () => await import('@fastify-gatehouse/postgres')

/**
 * AppServer's `database` option, in its object form: a connection (`url`,
 * or a `pg` Pool of yours, which is never ended here), the options every
 * PostgreSQL store shares, `migrate`, and the options of the stores it
 * opens: the cache of the user and API-key stores, the sweep of the
 * session and lockout stores, the API keys' last-use writes.
 */
export type ServerDatabaseOptions = PostgresConnection & PostgresStoreOptions & PostgresCacheOptions & SweepOptions & {
  /**
   * Bring the schema up to date at boot instead of refusing a schema that
   * is behind (`GATEHOUSE_POSTGRES_SCHEMA_BEHIND`). Default: false.
   */
  migrate?: boolean
  /** ms between writes of the API keys' last-use times. Default: 60000. */
  lastUsedFlushInterval?: number
}

// The options of the one pool the server opens from `url` (refused beside `pool`).
const POOL_KEYS = ['connectTimeout', 'statementTimeout', 'poolSize'] as const
// Which store takes which of the other numbers (D-SERVER-48: every store option, to the stores that use it).
const CACHE_KEYS = ['cacheSize', 'negativeCacheSize', 'recheckInterval', 'maxStale'] as const
const SWEEP_KEYS = ['sweepInterval', 'sweepBatch'] as const
const NUMBERS = [...POOL_KEYS, ...CACHE_KEYS, ...SWEEP_KEYS, 'lastUsedFlushInterval'] as const
const KEYS: readonly string[] = ['url', 'pool', 'schema', 'tablePrefix', 'migrate', ...NUMBERS]

type NumberKey = typeof NUMBERS[number]

function pick (database: ServerDatabaseOptions, keys: readonly NumberKey[]): Partial<Record<NumberKey, number>> {
  return Object.fromEntries(keys.filter((key) => database[key] !== undefined).map((key) => [key, database[key]]))
}

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
  /** Closes every store opened here, then the pool opened for them (a pool you gave stays open). */
  close: () => Promise<void>
}

/**
 * Checks the shape of `database` (a URL or {@link ServerDatabaseOptions})
 * as the server option it is, without loading the PostgreSQL package:
 * the keys, exactly one of url and pool, `migrate`, no pool options beside
 * a pool of yours. The values only PostgreSQL knows (the URL, the schema
 * and table names, the numbers) are the package's to check, when the
 * stores open ({@link openDatabaseStores}). Errors name `database` or
 * `database.<key>`, never the password.
 */
export function resolveDatabaseOption (database: unknown): ServerDatabaseOptions {
  if (typeof database === 'string') return Object.freeze({ url: database })
  if (!isPlainObject(database)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('database', 'expected a postgres:// URL or { url | pool, schema?, tablePrefix?, migrate? }')
  for (const key of Object.keys(database)) {
    if (!KEYS.includes(key)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`database.${key}`, `unknown option (known: ${KEYS.join(', ')})`)
  }
  if ((database.url === undefined) === (database.pool === undefined)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('database', 'give exactly one of url and pool')
  if (database.migrate !== undefined && typeof database.migrate !== 'boolean') throw new GATEHOUSE_SERVER_INVALID_OPTIONS('database.migrate', 'expected true or false')
  if (database.pool !== undefined) {
    const poolKey = POOL_KEYS.find((key) => database[key] !== undefined)
    if (poolKey !== undefined) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`database.${poolKey}`, 'applies to the pool the server opens from url; set it on the pool you give')
  }
  return Object.freeze({ ...database }) as unknown as ServerDatabaseOptions
}

// The values of a database option whose shape resolveDatabaseOption checked.
function checkDatabaseValues (postgres: Awaited<ReturnType<typeof postgresPackage>>, database: ServerDatabaseOptions, given: 'database' | 'database.url'): void {
  if (database.url !== undefined) postgres.checkPostgresUrl(database.url, given)
  if (database.schema !== undefined) postgres.checkSchema(database.schema, 'database.schema')
  if (database.tablePrefix !== undefined) postgres.checkTablePrefix(database.tablePrefix, 'database.tablePrefix')
  for (const key of NUMBERS) {
    if (database[key] === undefined) continue
    const problem = postgres.postgresOptionProblem(key, database[key])
    if (problem !== undefined) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`database.${key}`, problem)
  }
}

/**
 * Opens the PostgreSQL stores `roles` asks for, on one pool: the pool you
 * gave, or one opened from `url` with `poolSize` connections at most,
 * shared by every store (D-POSTGRES-23). With `migrate`, the schema is
 * brought up to date once, first (not by each store); then the stores
 * connect side by side, each checking the schema: one that is behind
 * rejects with `GATEHOUSE_POSTGRES_SCHEMA_BEHIND`, naming `gatehouse
 * migrate up`. When one fails, those already open are closed, and the
 * pool, before the error is passed on, so a failed boot leaves no
 * connection behind.
 */
export async function openDatabaseStores (database: ServerDatabaseOptions, roles: DatabaseRoles, given: 'database' | 'database.url' = 'database.url'): Promise<DatabaseStores> {
  const postgres = await postgresPackage()
  checkDatabaseValues(postgres, database, given)
  const connection = database.pool === undefined ? { url: database.url } : { pool: database.pool }
  const names = {
    ...(database.schema === undefined ? {} : { schema: database.schema }),
    ...(database.tablePrefix === undefined ? {} : { tablePrefix: database.tablePrefix })
  }
  const timeouts = pick(database, ['connectTimeout', 'statementTimeout'])
  if (database.migrate === true) await postgres.migrate({ ...connection, ...names, ...timeouts })
  const owned = database.pool === undefined ? postgres.createPostgresPool({ url: database.url, ...pick(database, POOL_KEYS) }) : undefined
  const shared = { pool: owned ?? database.pool!, ...names, migrate: false }
  const opening = {
    users: roles.users ? postgres.PostgresUserStore.connect({ ...shared, ...pick(database, CACHE_KEYS) }) : undefined,
    tokens: roles.tokens ? postgres.PostgresApiKeyStore.connect({ ...shared, ...pick(database, [...CACHE_KEYS, 'lastUsedFlushInterval']) }) : undefined,
    sessions: roles.sessions ? postgres.PostgresSessionStore.connect({ ...shared, ...pick(database, SWEEP_KEYS) }) : undefined,
    lockout: roles.lockout ? postgres.PostgresLockoutStore.connect({ ...shared, ...pick(database, SWEEP_KEYS) }) : undefined
  }
  const entries = Object.entries(opening).filter(([, store]) => store !== undefined) as Array<[keyof typeof opening, Promise<{ close: () => Promise<void> }>]>
  const settled = await Promise.allSettled(entries.map(([, store]) => store))
  const opened = settled.flatMap((result) => result.status === 'fulfilled' ? [result.value] : [])
  const close = async (): Promise<void> => {
    await Promise.allSettled(opened.map(async (store) => { await store.close() }))
    // After the stores: the API-key store writes its last-use times on close.
    if (owned !== undefined && !owned.ended) await owned.end().catch(() => {})
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
