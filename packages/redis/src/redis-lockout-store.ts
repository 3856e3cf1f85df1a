import { boundedPolicy, MAX_LOCK_SECONDS, type LockoutPolicy, type LockoutStore } from '@fastify-gatehouse/auth'
import type { RedisConnection, RedisStoreOptions } from './options.js'
import { claimAttempt, recordFailure, refundAttempt } from './lockout-scripts.js'
import { RedisStore } from './redis-store.js'

/** Options of {@link RedisLockoutStore}: a connection plus the shared store options. */
export type RedisLockoutStoreOptions = RedisConnection & RedisStoreOptions

/** The default key prefix of {@link RedisLockoutStore}. */
export const LOCKOUT_PREFIX = 'gatehouse:lock:'

/**
 * Failed-login counters in Redis, shared by every server instance that uses
 * the same Redis and prefix (give it as `serverApp.login.store`). Each call
 * is one round trip: `claim`, `recordFailure` and `refund` are Lua scripts
 * (D-LOCKOUT-03: claimed before the password check, settled after,
 * atomically), `lockedFor` one HGET, `reset` one DEL. State expires by
 * itself once neither locked nor worth remembering (`resetAfter`). A
 * failure or timeout rejects with `GATEHOUSE_REDIS_UNAVAILABLE` (503).
 */
export class RedisLockoutStore extends RedisStore implements LockoutStore {
  /**
   * Opens the store and waits until Redis answers: rejects with
   * `GATEHOUSE_REDIS_INVALID_OPTIONS` for bad options and
   * `GATEHOUSE_REDIS_CONNECT` when Redis is not ready within
   * `connectTimeout`, so a server fails at boot, not on a request.
   *
   * @param options `{ url }` (the store opens, and `close()` closes, its own
   *   client) or `{ client }` (yours; never closed here, connected if it was
   *   made with `lazyConnect`), with `prefix` (default `gatehouse:lock:`)
   *   and, for an opened client, timeouts.
   * @param prefix the key prefix, as a second argument.
   * D-REDIS-08.
   */
  static async connect (options: RedisLockoutStoreOptions, prefix?: string): Promise<RedisLockoutStore> {
    return await RedisStore.connected(new RedisLockoutStore(options, prefix))
  }

  /**
   * @deprecated Use {@link RedisLockoutStore.connect}: this starts connecting
   * without waiting, so Redis being away shows only at `ready()` or on the
   * first request.
   */
  constructor (options: RedisLockoutStoreOptions, prefix?: string) {
    super(options, prefix, LOCKOUT_PREFIX, 'RedisLockoutStore')
  }

  async lockedFor (key: string, now: number): Promise<number> {
    const until = await this.run(this.connection.client.hget(this.prefix + key, 'l'))
    const lockedUntil = Number(until ?? 0)
    return lockedUntil > now ? Math.ceil((lockedUntil - now) / 1000) : 0
  }

  async claim (key: string, policy: LockoutPolicy, now: number): Promise<number> {
    return Number(await this.run(claimAttempt.run(this.connection.client, [this.prefix + key], this.#args(policy, now))))
  }

  async recordFailure (key: string, policy: LockoutPolicy, now: number): Promise<number> {
    const remaining = await this.run(recordFailure.run(this.connection.client, [this.prefix + key], this.#args(policy, now)))
    return Math.ceil(Number(remaining) / 1000)
  }

  async refund (key: string, policy: LockoutPolicy, now: number): Promise<void> {
    await this.run(refundAttempt.run(this.connection.client, [this.prefix + key], this.#args(policy, now)))
  }

  async reset (key: string): Promise<void> {
    await this.run(this.connection.client.del(this.prefix + key))
  }

  // Held to LOCKOUT_LIMITS: PEXPIRE refuses the expiry a far larger resetAfter makes (D-LOCKOUT-07).
  #args (policy: LockoutPolicy, now: number): number[] {
    const { maxAttempts, backoff, resetAfter } = boundedPolicy(policy)
    return [Math.floor(now), maxAttempts, backoff, resetAfter, MAX_LOCK_SECONDS]
  }
}
