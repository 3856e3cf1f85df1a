import { closeConnection, openConnection, whenReady, type OpenedConnection } from './connection.js'
import { redisUnavailable } from './errors.js'
import { resolveRedisStoreOptions, type RedisConnection, type RedisStoreOptions } from './options.js'

/**
 * What the Redis stores share: the connection (opened from `{ url }` and
 * then closed by `close()`, or `{ client }`, never closed here), the key
 * prefix, readiness, and turning any Redis failure into
 * `GATEHOUSE_REDIS_UNAVAILABLE` (503).
 */
export abstract class RedisStore {
  protected readonly connection: OpenedConnection
  readonly #prefix: string
  readonly #connectTimeout: number
  readonly #name: string

  protected constructor (options: RedisConnection & RedisStoreOptions, prefix: string | undefined, defaultPrefix: string, what: string) {
    const resolved = resolveRedisStoreOptions(options, prefix, defaultPrefix, what)
    this.#prefix = resolved.prefix
    this.#connectTimeout = resolved.connectTimeout
    this.#name = what
    this.connection = openConnection(resolved)
  }

  /**
   * The body of the subclasses' `connect()`: waits until Redis is ready;
   * when it is not within `connectTimeout`, closes a client the store opened
   * and rejects with `GATEHOUSE_REDIS_CONNECT`, so a server fails at boot
   * rather than on its first request.
   */
  protected static async connected<S extends RedisStore> (store: S): Promise<S> {
    try {
      await whenReady(store.connection.client, store.#connectTimeout, store.#name)
    } catch (err) {
      await store.close()
      throw err
    }
    return store
  }

  /** The key prefix in use. */
  get prefix (): string {
    return this.#prefix
  }

  /** The ioredis client (yours, or the one the store opened). */
  get client (): OpenedConnection['client'] {
    return this.connection.client
  }

  /** Resolves once connected; rejects with `GATEHOUSE_REDIS_UNAVAILABLE` after `timeout` ms (default: connectTimeout). */
  async ready (timeout = this.#connectTimeout): Promise<void> {
    await this.run(whenReady(this.connection.client, timeout, this.#name))
  }

  /** Closes the client the store opened; a client you gave is left open. */
  async close (): Promise<void> {
    await closeConnection(this.connection)
  }

  /** Awaits one Redis call; a failure or timeout becomes `GATEHOUSE_REDIS_UNAVAILABLE`. */
  protected async run<T> (call: Promise<T>): Promise<T> {
    try {
      return await call
    } catch (err) {
      throw redisUnavailable(err)
    }
  }
}
