import { checkPrefix, closeConnection, connectionDefaults, openConnection, whenReady, type OpenedConnection, type RedisConnection, type RedisStoreOptions } from './connection.js'
import { redisUnavailable } from './errors.js'

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

  protected constructor (options: RedisConnection & RedisStoreOptions, prefix: string | undefined, defaultPrefix: string, what: string) {
    this.#prefix = checkPrefix(prefix ?? options?.prefix ?? defaultPrefix, what)
    this.connection = openConnection(options, what)
    this.#connectTimeout = options.connectTimeout ?? connectionDefaults.connectTimeout
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
    await this.run(whenReady(this.connection.client, timeout))
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
