import { userInfo } from 'node:os'
import type { Pool } from 'pg'
import { isPlainObject } from '@fastify-gatehouse/core'
import { GATEHOUSE_POSTGRES_INVALID_OPTIONS } from './errors.js'
import { checkSchema, checkTablePrefix, sqlNames, type SqlNames } from './names.js'
import { optionProblem, wholeOption } from './option-ranges.js'

/** How a store reaches PostgreSQL: a URL (the store opens and owns a pool) or a `pg` Pool of yours (never closed here). */
export type PostgresConnection =
  | { url: string, pool?: undefined }
  | { pool: Pool, url?: undefined }

/** Options shared by the PostgreSQL stores and `migrate()`; every key is optional. */
export interface PostgresStoreOptions {
  /** The schema holding Gatehouse's tables. Default: `gatehouse`. */
  schema?: string
  /** Prefix of every table name (for several Gatehouse deployments in one schema). Default: `''`. */
  tablePrefix?: string
  /** Milliseconds to wait for a connection (a pool the store opens); `connect()` waits this long. Default: 5000. */
  connectTimeout?: number
  /** Milliseconds a statement may run before it is cancelled and the call fails with 503. Default: 5000. */
  statementTimeout?: number
  /** Connections of a pool the store opens. Default: 10. */
  poolSize?: number
}

/** {@link PostgresStoreOptions} with the defaults applied, and the connection checked. */
export interface ResolvedPostgresOptions {
  /** What opened it (a class name), for messages. */
  readonly store: string
  readonly url: string | undefined
  readonly pool: Pool | undefined
  readonly names: SqlNames
  readonly connectTimeout: number
  readonly statementTimeout: number
  readonly poolSize: number
}

export const defaults = Object.freeze({ schema: 'gatehouse', tablePrefix: '', connectTimeout: 5000, statementTimeout: 5000, poolSize: 10 })

/** Checks a `postgres://` / `postgresql://` URL; the message names what is wrong, never the password. */
export function checkPostgresUrl (url: unknown, label: string): string {
  if (typeof url !== 'string' || url === '') throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(label, 'expected a postgres:// URL')
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(label, 'not a URL (expected postgres://user@host:port/database)')
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(label, `unsupported scheme "${parsed.protocol}" (expected postgres: or postgresql:)`)
  }
  if (parsed.hostname === '') throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(label, 'the URL names no host')
  try {
    for (const part of [parsed.pathname, parsed.username, parsed.password]) decodeURIComponent(part)
  } catch {
    throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(label, 'a %-escape in the URL cannot be decoded')
  }
  return url
}

/**
 * The URL with the operating-system user filled in when it names none and
 * neither $PGUSER nor $USER is set (a container often has no $USER), as
 * libpq (and so psql) does; pg alone would send no user name at all, and
 * `postgres://127.0.0.1/app` would work in psql but not here.
 */
export function withDefaultUser (url: string): string {
  const parsed = new URL(url)
  if (parsed.username !== '' || (process.env.PGUSER ?? '') !== '' || (process.env.USER ?? '') !== '') return url
  let name: string
  try {
    name = userInfo().username
  } catch {
    return url
  }
  parsed.username = encodeURIComponent(name)
  return parsed.href
}

/** host:port/database of a URL, for messages: never the user's password. */
export function describeUrl (url: string): string {
  const { hostname, port, pathname } = new URL(url)
  const database = decodeURIComponent(pathname.replace(/^\//, ''))
  return `${hostname}:${port === '' ? '5432' : port}/${database === '' ? '(default database)' : database}`
}

/**
 * How long the listener of a store given `pool` waits to connect, and for a
 * heartbeat: as long as the pool waits for a connection, when it says
 * (`connectionTimeoutMillis`, as `createPostgresPool` sets it), else the
 * default; never forever (0 is pg's "no limit").
 */
function connectTimeoutOf (pool: Pool): number {
  const waits = (pool as { options?: { connectionTimeoutMillis?: unknown } }).options?.connectionTimeoutMillis
  return optionProblem('connectTimeout', waits) === undefined ? waits as number : defaults.connectTimeout
}

const KNOWN = new Set(['url', 'pool', 'schema', 'tablePrefix', 'connectTimeout', 'statementTimeout', 'poolSize'])

/**
 * Checks a store's connection and options (`store` names it in messages);
 * `extra` lists further keys the store itself takes. Throws
 * `GATEHOUSE_POSTGRES_INVALID_OPTIONS` naming the option.
 */
export function resolvePostgresOptions (options: PostgresConnection & PostgresStoreOptions, store: string, extra: readonly string[] = []): ResolvedPostgresOptions {
  if (!isPlainObject(options as unknown)) throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(store, 'expected options { url } or { pool }')
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key) && !extra.includes(key)) throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(`${store} ${key}`, 'unknown option')
  }
  const { url, pool } = options
  if ((url === undefined) === (pool === undefined)) throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(store, 'give exactly one of url and pool')
  if (pool !== undefined && (typeof pool !== 'object' || pool === null || typeof (pool as { query?: unknown }).query !== 'function' || typeof (pool as { connect?: unknown }).connect !== 'function')) {
    throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(`${store} pool`, 'expected a pg Pool')
  }
  if (pool !== undefined) {
    // Timeouts and size are the pool's own (connectionTimeoutMillis, statement_timeout, query_timeout, max): refused here, not ignored.
    for (const key of ['connectTimeout', 'statementTimeout', 'poolSize'] as const) {
      if (options[key] !== undefined) throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(`${store} ${key}`, 'applies to a pool the store opens from a url; set it on the pool you give')
    }
  }
  for (const key of ['schema', 'tablePrefix'] as const) {
    if (options[key] === null) throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(`${store} ${key}`, 'null; leave it out for the default')
  }
  return Object.freeze({
    store,
    url: url === undefined ? undefined : withDefaultUser(checkPostgresUrl(url, `${store} url`)),
    pool,
    names: sqlNames(checkSchema(options.schema ?? defaults.schema, `${store} schema`), checkTablePrefix(options.tablePrefix ?? defaults.tablePrefix, `${store} tablePrefix`)),
    connectTimeout: wholeOption(store, 'connectTimeout', options.connectTimeout, pool === undefined ? defaults.connectTimeout : connectTimeoutOf(pool)),
    statementTimeout: wholeOption(store, 'statementTimeout', options.statementTimeout, defaults.statementTimeout),
    poolSize: wholeOption(store, 'poolSize', options.poolSize, defaults.poolSize)
  })
}
