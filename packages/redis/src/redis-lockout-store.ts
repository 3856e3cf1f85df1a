import { MAX_LOCK_SECONDS, type LockoutPolicy, type LockoutStore } from '@gatehouse/auth'
import { checkPrefix, closeConnection, connectionDefaults, openConnection, whenReady, type OpenedConnection, type RedisConnection, type RedisStoreOptions } from './connection.js'
import { redisUnavailable } from './errors.js'
import { failLockout } from './lockout-scripts.js'

/** Options of {@link RedisLockoutStore}: a connection plus the shared store options. */
export type RedisLockoutStoreOptions = RedisConnection & RedisStoreOptions

/** The default key prefix of {@link RedisLockoutStore}. */
export const LOCKOUT_PREFIX = 'gatehouse:lock:'

/**
 * Failed-login counters in Redis, shared by every server instance that uses
 * the same Redis and prefix (give it as `serverApp.login.store`). Each call
 * is one round trip: `fail` is a Lua script (read, count, lock, expire,
 * atomically), `lockedFor` one HGET, `reset` one DEL. State expires by
 * itself once neither locked nor worth remembering (`resetAfter`). A
 * failure or timeout rejects with `GATEHOUSE_REDIS_UNAVAILABLE` (503).
 */
export class RedisLockoutStore implements LockoutStore {
  readonly #connection: OpenedConnection
  readonly #prefix: string
  readonly #connectTimeout: number

  /**
   * @param options `{ url }` (the store opens, and `close()` closes, its own
   *   client) or `{ client }` (yours; never closed here), with `prefix`
   *   (default `gatehouse:lock:`) and, for an opened client, timeouts.
   * @param prefix the key prefix, as a second argument.
   */
  constructor (options: RedisLockoutStoreOptions, prefix?: string) {
    this.#prefix = checkPrefix(prefix ?? options?.prefix ?? LOCKOUT_PREFIX, 'RedisLockoutStore')
    this.#connection = openConnection(options, 'RedisLockoutStore')
    this.#connectTimeout = options.connectTimeout ?? connectionDefaults.connectTimeout
  }

  /** The key prefix in use. */
  get prefix (): string {
    return this.#prefix
  }

  /** The ioredis client (yours, or the one the store opened). */
  get client (): OpenedConnection['client'] {
    return this.#connection.client
  }

  /** Resolves once connected; rejects with `GATEHOUSE_REDIS_UNAVAILABLE` after `timeout` ms (default: connectTimeout). */
  async ready (timeout = this.#connectTimeout): Promise<void> {
    try {
      await whenReady(this.#connection.client, timeout)
    } catch (err) {
      throw redisUnavailable(err)
    }
  }

  async lockedFor (key: string, now: number): Promise<number> {
    let until: string | null
    try {
      until = await this.#connection.client.hget(this.#prefix + key, 'l')
    } catch (err) {
      throw redisUnavailable(err)
    }
    const lockedUntil = Number(until ?? 0)
    return lockedUntil > now ? Math.ceil((lockedUntil - now) / 1000) : 0
  }

  async fail (key: string, policy: LockoutPolicy, now: number): Promise<number> {
    let remaining: unknown
    try {
      remaining = await failLockout.run(this.#connection.client, [this.#prefix + key],
        [Math.floor(now), policy.maxAttempts, policy.backoff, policy.resetAfter, MAX_LOCK_SECONDS])
    } catch (err) {
      throw redisUnavailable(err)
    }
    return Math.ceil(Number(remaining) / 1000)
  }

  async reset (key: string): Promise<void> {
    try {
      await this.#connection.client.del(this.#prefix + key)
    } catch (err) {
      throw redisUnavailable(err)
    }
  }

  /** Closes the client the store opened; a client you gave is left open. */
  async close (): Promise<void> {
    await closeConnection(this.#connection)
  }
}
