import type { Redis } from 'ioredis'
import { hasControlCharacter } from '@fastify-gatehouse/core'
import { GATEHOUSE_REDIS_INVALID_OPTIONS } from './errors.js'

/** How a store reaches Redis: a URL (the store opens and owns a client) or a client of yours. */
export type RedisConnection =
  | { url: string, client?: undefined }
  | { client: Redis, url?: undefined }

/** Options shared by the Redis stores; every key is optional. */
export interface RedisStoreOptions {
  /** Prefix of every key the store writes. Default: per store (`gatehouse:sess:`, `gatehouse:lock:`). */
  prefix?: string
  /** Milliseconds a command may take before it fails (clients the store opens). Default: 1000. */
  commandTimeout?: number
  /** Milliseconds a connection attempt may take; `connect()` waits this long for Redis. Default: 2000. */
  connectTimeout?: number
}

/** {@link RedisStoreOptions} with the defaults applied, and the connection checked. */
export interface ResolvedRedisStoreOptions {
  /** The store's class name, for messages. */
  readonly store: string
  readonly url: string | undefined
  readonly client: Redis | undefined
  readonly prefix: string
  readonly commandTimeout: number
  readonly connectTimeout: number
}

export const defaults = Object.freeze({ commandTimeout: 1000, connectTimeout: 2000 })

/** Checks a `redis://` / `rediss://` URL; the message names what is wrong, never the password. */
export function checkRedisUrl (url: unknown, label: string): string {
  if (typeof url !== 'string' || url === '') throw new GATEHOUSE_REDIS_INVALID_OPTIONS(label, 'expected a redis:// or rediss:// URL')
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new GATEHOUSE_REDIS_INVALID_OPTIONS(label, 'not a URL (expected redis://host:port/db)')
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new GATEHOUSE_REDIS_INVALID_OPTIONS(label, `unsupported scheme "${parsed.protocol}" (expected redis: or rediss:)`)
  if (parsed.hostname === '') throw new GATEHOUSE_REDIS_INVALID_OPTIONS(label, 'the URL names no host')
  const db = parsed.pathname.replace(/^\//, '')
  if (db !== '' && !/^\d{1,2}$/.test(db)) throw new GATEHOUSE_REDIS_INVALID_OPTIONS(label, `the database must be a number, got "${db}"`)
  return url
}

/** Checks a key prefix. */
export function checkPrefix (prefix: unknown, store: string): string {
  if (typeof prefix !== 'string' || prefix === '' || prefix.length > 200 || /\s/.test(prefix) || hasControlCharacter(prefix)) {
    throw new GATEHOUSE_REDIS_INVALID_OPTIONS(`${store} prefix`, 'expected a non-empty string without spaces or control characters (at most 200 characters)')
  }
  return prefix
}

function milliseconds (name: string, value: unknown, fallback: number, store: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new GATEHOUSE_REDIS_INVALID_OPTIONS(`${store} ${name}`, 'expected a positive number of milliseconds')
  return value
}

function isClient (value: unknown): value is Redis {
  return typeof value === 'object' && value !== null &&
    typeof (value as { evalsha?: unknown }).evalsha === 'function' && typeof (value as { hmget?: unknown }).hmget === 'function'
}

/**
 * Applies the defaults and checks the options of the store named `store`:
 * exactly one of `url` (a redis:// URL) and `client` (an ioredis client),
 * the prefix (`prefix` wins over `options.prefix`), the timeouts. Throws
 * `GATEHOUSE_REDIS_INVALID_OPTIONS` naming the option; never the password.
 */
export function resolveRedisStoreOptions (options: RedisConnection & RedisStoreOptions, prefix: string | undefined, defaultPrefix: string, store: string): ResolvedRedisStoreOptions {
  if (typeof options !== 'object' || options === null) throw new GATEHOUSE_REDIS_INVALID_OPTIONS(store, 'expected { url } or { client }')
  const { url, client } = options
  if (url !== undefined && client !== undefined) throw new GATEHOUSE_REDIS_INVALID_OPTIONS(store, 'give url or client, not both')
  if (client !== undefined && !isClient(client)) throw new GATEHOUSE_REDIS_INVALID_OPTIONS(`${store} client`, 'expected an ioredis client')
  if (client === undefined) checkRedisUrl(url, `${store} url`)
  return Object.freeze({
    store,
    url,
    client,
    prefix: checkPrefix(prefix ?? options.prefix ?? defaultPrefix, store),
    commandTimeout: milliseconds('commandTimeout', options.commandTimeout, defaults.commandTimeout, store),
    connectTimeout: milliseconds('connectTimeout', options.connectTimeout, defaults.connectTimeout, store)
  })
}
