import { dirname, resolve } from 'node:path'
import { isPlainObject } from '@fastify-gatehouse/core'
import type { PostgresNumericOption } from '@fastify-gatehouse/postgres'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'
import { postgresPackage, redisPackage } from './drivers.js'

/** A folder holding users.json and keys.json (`server_app.store: ./data`), absolute. */
export interface FolderStoreConfig { readonly kind: 'folder', readonly dir: string }
/** `{ redis: 'redis://…', prefix? }`: sessions or lockout counters in Redis. */
export interface RedisStoreConfig { readonly kind: 'redis', readonly url: string, readonly prefix?: string }
/**
 * `{ postgres: 'postgres://…', schema?, table_prefix?, migrate?, pool_size?, max_stale?, … }`,
 * in its camelCase form: the numbers as the stores (and AppServer's `database`) take them.
 */
export type PostgresStoreConfig = {
  readonly kind: 'postgres'
  readonly url: string
  readonly schema?: string
  readonly tablePrefix?: string
  readonly migrate?: boolean
} & { readonly [key in PostgresNumber]?: number }
/** A store as a config file gives it, checked. */
export type StoreConfig = FolderStoreConfig | RedisStoreConfig | PostgresStoreConfig

/** The stores a config file names, each checked; absent ones are undefined. */
export interface ConfigStores {
  /** `server_app.store`: users and API keys. */
  readonly users?: FolderStoreConfig | PostgresStoreConfig
  /** `middleware.session.store`. */
  readonly sessions?: RedisStoreConfig | PostgresStoreConfig
  /** `server_app.login.store`: the lockout counters. */
  readonly lockout?: RedisStoreConfig | PostgresStoreConfig
}

// The keys of each form as a file writes them (snake_case, D-CONFIG-01) and
// their camelCase spelling, which a file must not use.
// The numbers of `{ postgres: … }`, by their spelling in a file; each is
// checked against the range the stores take (D-CLI-17).
const POSTGRES_NUMBERS = {
  connect_timeout: 'connectTimeout',
  statement_timeout: 'statementTimeout',
  pool_size: 'poolSize',
  sweep_interval: 'sweepInterval',
  sweep_batch: 'sweepBatch',
  cache_size: 'cacheSize',
  negative_cache_size: 'negativeCacheSize',
  recheck_interval: 'recheckInterval',
  max_stale: 'maxStale',
  last_used_flush_interval: 'lastUsedFlushInterval'
} as const satisfies Record<string, PostgresNumericOption>
type PostgresNumber = typeof POSTGRES_NUMBERS[keyof typeof POSTGRES_NUMBERS]
// Those that only the user and API-key stores take: only server_app.store opens them.
const USERS_AND_KEYS_ONLY: ReadonlySet<string> = new Set(['cache_size', 'negative_cache_size', 'recheck_interval', 'max_stale', 'last_used_flush_interval'])

const KEYS = {
  redis: { redis: 'redis', prefix: 'prefix' },
  postgres: { postgres: 'postgres', schema: 'schema', table_prefix: 'tablePrefix', migrate: 'migrate', ...POSTGRES_NUMBERS }
} as const

const FORMS = {
  folder: 'a folder',
  redis: '{ redis: "redis://host:port/db" }',
  postgres: '{ postgres: "postgres://user@host:port/db" }'
} as const

type Kind = keyof typeof FORMS

function expected (kinds: readonly Kind[]): string {
  return `expected ${kinds.map((kind) => FORMS[kind]).join(' or ')}`
}

/** Whether `value` is a URL (`scheme://…`) rather than a folder. */
export function looksLikeUrl (value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value)
}

/**
 * Checks a store given in a config file: a folder (where `kinds` allows it),
 * `{ redis: … }` or `{ postgres: … }`. The URL is checked by its driver's
 * own check (the driver loads only when named); errors name `path` as
 * written in the file and never show a password. A relative folder is
 * resolved against `baseDir`, the config file's folder (D-CLI-06).
 */
export async function parseStoreConfig (value: unknown, path: string, kinds: readonly Kind[], baseDir: string): Promise<StoreConfig> {
  if (typeof value === 'string' && kinds.includes('folder')) {
    if (value === '') throw new GATEHOUSE_SERVER_INVALID_OPTIONS(path, `${expected(kinds)}, not an empty string`)
    // Never echoed: a URL may carry a password.
    if (looksLikeUrl(value)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(path, 'a URL is not a folder; a PostgreSQL store is written { postgres: "postgres://…" }')
    return { kind: 'folder', dir: resolve(baseDir, value) }
  }
  if (!isPlainObject(value)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(path, expected(kinds))
  const isRedis = Object.hasOwn(value, 'redis')
  const isPostgres = Object.hasOwn(value, 'postgres')
  if (isRedis && isPostgres) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(path, 'give one of redis and postgres, not both')
  if (!isRedis && !isPostgres) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(path, expected(kinds))
  const kind = isRedis ? 'redis' : 'postgres'
  if (!kinds.includes(kind)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}.${kind}`, `this store cannot live in ${kind === 'redis' ? 'Redis' : 'PostgreSQL'}; ${expected(kinds)}`)
  const keys: Readonly<Record<string, string>> = KEYS[kind]
  const camel = Object.values(keys)
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(keys, key)) continue
    const hint = camel.includes(key) ? ` (config files use snake_case: ${Object.keys(keys).find((k) => keys[k] === key)})` : ''
    throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}.${key}`, `unknown option${hint}`)
  }
  if (kind === 'redis') {
    (await redisPackage()).checkRedisUrl(value.redis, `${path}.redis`)
    if (value.prefix !== undefined && (typeof value.prefix !== 'string' || value.prefix === '')) {
      throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}.prefix`, 'expected a non-empty string')
    }
    return { kind, url: value.redis as string, ...(value.prefix === undefined ? {} : { prefix: value.prefix }) }
  }
  const postgres = await postgresPackage()
  postgres.checkPostgresUrl(value.postgres, `${path}.postgres`)
  if (value.schema !== undefined) postgres.checkSchema(value.schema, `${path}.schema`)
  if (value.table_prefix !== undefined) postgres.checkTablePrefix(value.table_prefix, `${path}.table_prefix`)
  if (value.migrate !== undefined && typeof value.migrate !== 'boolean') throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}.migrate`, 'expected true or false')
  const numbers: Partial<Record<PostgresNumber, number>> = {}
  for (const [key, option] of Object.entries(POSTGRES_NUMBERS)) {
    if (value[key] === undefined) continue
    // Only server_app.store (the one that may be a folder) opens the user and API-key stores.
    if (!kinds.includes('folder') && USERS_AND_KEYS_ONLY.has(key)) {
      throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}.${key}`, 'applies to the user and API-key stores: set it on server_app.store')
    }
    const problem = postgres.postgresOptionProblem(option, value[key])
    if (problem !== undefined) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}.${key}`, problem)
    numbers[option] = value[key] as number
  }
  return {
    kind,
    url: value.postgres as string,
    ...(value.schema === undefined ? {} : { schema: value.schema as string }),
    ...(value.table_prefix === undefined ? {} : { tablePrefix: value.table_prefix as string }),
    ...(value.migrate === undefined ? {} : { migrate: value.migrate }),
    ...numbers
  }
}

/**
 * Every store a loaded config file names (`server_app.store`,
 * `middleware.session.store`, `server_app.login.store`), checked before
 * anything opens. `configPath` is the file's (absolute) path.
 */
export async function configStores (config: { middleware?: Readonly<Record<string, unknown>>, serverApp?: Readonly<Record<string, unknown>> }, configPath: string): Promise<ConfigStores> {
  const baseDir = dirname(configPath)
  const serverApp = config.serverApp ?? {}
  const session = config.middleware?.session
  const sessionStore = isPlainObject(session) ? session.store : undefined
  const login = serverApp.login
  const lockoutStore = isPlainObject(login) ? login.store : undefined
  let users, sessions, lockout
  try {
    users = serverApp.store === undefined ? undefined : await parseStoreConfig(serverApp.store, 'server_app.store', ['folder', 'postgres'], baseDir)
    sessions = sessionStore === undefined ? undefined : await parseStoreConfig(sessionStore, 'middleware.session.store', ['redis', 'postgres'], baseDir)
    lockout = lockoutStore === undefined ? undefined : await parseStoreConfig(lockoutStore, 'server_app.login.store', ['redis', 'postgres'], baseDir)
  } catch (err) {
    // Named like the loader's own errors: the file, then the key.
    if (err instanceof Error) err.message = `${configPath}: ${err.message}`
    throw err
  }
  return {
    ...(users === undefined ? {} : { users: users as FolderStoreConfig | PostgresStoreConfig }),
    ...(sessions === undefined ? {} : { sessions: sessions as RedisStoreConfig | PostgresStoreConfig }),
    ...(lockout === undefined ? {} : { lockout: lockout as RedisStoreConfig | PostgresStoreConfig })
  }
}
