import type pg from 'pg'
import { isPlainObject } from '@fastify-gatehouse/core'
import { newPool } from './connection.js'
import { GATEHOUSE_POSTGRES_INVALID_OPTIONS } from './errors.js'
import { wholeOption } from './option-ranges.js'
import { checkPostgresUrl, defaults, withDefaultUser } from './options.js'

/** Options of {@link createPostgresPool}: the URL and the pool's settings, as the stores take them. */
export interface PostgresPoolOptions {
  /** `postgres://user@host:port/database`. */
  url: string
  /** ms to wait for a connection (a free one of the pool's, or a new one). Default: 5000. */
  connectTimeout?: number
  /** ms a statement may run before it is cancelled (a 503); the client gives up one second later. Default: 5000. */
  statementTimeout?: number
  /** Connections of the pool, at most. Default: 10. */
  poolSize?: number
}

const KNOWN = new Set(['url', 'connectTimeout', 'statementTimeout', 'poolSize'])

/**
 * One pg Pool with the settings a store gives the pool it opens from a
 * URL, to hand to several stores as `{ pool }`: they then share at most
 * `poolSize` connections, taken in turn (pg-pool serves waiting calls
 * first come, first served, and each store returns a connection after
 * every statement), instead of each store holding a pool of its own. The
 * stores' listeners wait as long as it does (`connectTimeout`). End it
 * with `pool.end()` after closing the stores. Throws
 * `GATEHOUSE_POSTGRES_INVALID_OPTIONS` naming a bad option.
 * D-POSTGRES-23.
 */
export function createPostgresPool (options: PostgresPoolOptions): pg.Pool {
  const what = 'createPostgresPool'
  if (!isPlainObject(options as unknown)) throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(what, 'expected options { url, connectTimeout?, statementTimeout?, poolSize? }')
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(`${what} ${key}`, 'unknown option')
  }
  return newPool({
    url: withDefaultUser(checkPostgresUrl(options.url, `${what} url`)),
    connectTimeout: wholeOption(what, 'connectTimeout', options.connectTimeout, defaults.connectTimeout),
    statementTimeout: wholeOption(what, 'statementTimeout', options.statementTimeout, defaults.statementTimeout),
    poolSize: wholeOption(what, 'poolSize', options.poolSize, defaults.poolSize)
  })
}
