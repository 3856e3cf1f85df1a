import { Redis, type RedisOptions } from 'ioredis'
import { GATEHOUSE_REDIS_INVALID_OPTIONS } from './errors.js'

/** How a store reaches Redis: a URL (the store opens and owns a client) or a client of yours. */
export type RedisConnection =
  | { url: string, client?: undefined }
  | { client: Redis, url?: undefined }

/** Options shared by the Redis stores. */
export interface RedisStoreOptions {
  /** Prefix of every key the store writes. Default: per store (`gatehouse:sess:`, `gatehouse:lock:`). */
  prefix?: string
  /** Milliseconds a command may take before it fails (clients the store opens). Default: 1000. */
  commandTimeout?: number
  /** Milliseconds a connection attempt may take (clients the store opens). Default: 2000. */
  connectTimeout?: number
}

export const connectionDefaults = Object.freeze({ commandTimeout: 1000, connectTimeout: 2000 })

/** An ioredis client and whether the store opened it (and so must close it). */
export interface OpenedConnection {
  readonly client: Redis
  readonly owned: boolean
}

function positive (name: string, value: unknown, fallback: number, store: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new GATEHOUSE_REDIS_INVALID_OPTIONS(`${store} ${name}`, 'expected a positive number of milliseconds')
  return value
}

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

function isClient (value: unknown): value is Redis {
  return typeof value === 'object' && value !== null &&
    typeof (value as { evalsha?: unknown }).evalsha === 'function' && typeof (value as { hmget?: unknown }).hmget === 'function'
}

/**
 * Opens the connection a store was given. A client made here fails fast
 * while Redis is away (no offline queue, bounded command and connect
 * timeouts, one retry) and reconnects by itself; its `error` events are
 * absorbed (each failed call rejects on its own).
 */
export function openConnection (options: RedisConnection & RedisStoreOptions, store: string): OpenedConnection {
  if (typeof options !== 'object' || options === null) throw new GATEHOUSE_REDIS_INVALID_OPTIONS(store, 'expected { url } or { client }')
  const { url, client } = options
  if (url !== undefined && client !== undefined) throw new GATEHOUSE_REDIS_INVALID_OPTIONS(store, 'give url or client, not both')
  if (client !== undefined) {
    if (!isClient(client)) throw new GATEHOUSE_REDIS_INVALID_OPTIONS(`${store} client`, 'expected an ioredis client')
    return { client, owned: false }
  }
  checkRedisUrl(url, `${store} url`)
  const settings: RedisOptions = {
    commandTimeout: positive('commandTimeout', options.commandTimeout, connectionDefaults.commandTimeout, store),
    connectTimeout: positive('connectTimeout', options.connectTimeout, connectionDefaults.connectTimeout, store),
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // Reconnect for ever, backing off to one attempt every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000)
  }
  const opened = new Redis(url as string, settings)
  opened.on('error', () => {})
  return { client: opened, owned: true }
}

/** Resolves once `client` is connected, or rejects after `timeout` ms. */
export async function whenReady (client: Redis, timeout: number): Promise<void> {
  if (client.status === 'ready') return
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { client.off('ready', ready); reject(new Error(`Redis not ready after ${timeout} ms`)) }, timeout)
    const ready = (): void => { clearTimeout(timer); resolve() }
    client.once('ready', ready)
  })
}

/** Closes a client the store opened: QUIT, or a hard disconnect when Redis does not answer. */
export async function closeConnection (connection: OpenedConnection): Promise<void> {
  if (!connection.owned || connection.client.status === 'end') return
  const { client } = connection
  try {
    if (client.status !== 'ready') throw new Error('not connected')
    await Promise.race([client.quit(), new Promise((_resolve, reject) => setTimeout(() => reject(new Error('quit timed out')), 1000).unref())])
  } catch {
    client.disconnect()
  }
}

/** Checks a key prefix. */
export function checkPrefix (prefix: unknown, store: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: they are refused
  if (typeof prefix !== 'string' || prefix === '' || prefix.length > 200 || /[\s\u0000-\u001f]/.test(prefix)) {
    throw new GATEHOUSE_REDIS_INVALID_OPTIONS(`${store} prefix`, 'expected a non-empty string without spaces or control characters (at most 200 characters)')
  }
  return prefix
}
