import { CACHE_OPTION_KEYS, resolveCacheOptions, type PostgresCacheOptions } from './cache-options.js'
import { ChangeListener, listenerConfig } from './change-listener.js'
import { ConfirmedCache } from './confirmed-cache.js'
import { poolAddress } from './connection.js'
import { refusingData } from './data-exception.js'
import { GATEHOUSE_POSTGRES_CONNECT } from './errors.js'
import type { PostgresConnection, PostgresStoreOptions } from './options.js'
import { PostgresStore, type ConnectOptions } from './postgres-store.js'

/**
 * A PostgreSQL store that caches rows of one kind (`user` or `key`) and
 * keeps the cache right with its own change listener: a dedicated
 * connection LISTENing on the schema's channel, whose notifications drop
 * the entries they name.
 * D-POSTGRES-15.
 */
export abstract class ListeningStore<V> extends PostgresStore {
  protected readonly cache: ConfirmedCache<V>
  readonly #listener: ChangeListener
  readonly #kind: string

  /**
   * @param kind the notification prefix this store's rows announce (`user`, `key`)
   * @param extra option keys the subclass takes besides the shared and cache ones
   */
  protected constructor (options: PostgresConnection & PostgresStoreOptions & ConnectOptions & PostgresCacheOptions, what: string, kind: string, extra: readonly string[] = []) {
    super(options, what, [...CACHE_OPTION_KEYS, ...extra])
    this.#kind = kind
    this.cache = new ConfirmedCache<V>(resolveCacheOptions(options, what), () => this.#listener.coverage)
    this.#listener = new ChangeListener(listenerConfig(this.options, this.pool), this.names.channel, (payload) => { this.#changed(payload) }, this.options.connectTimeout)
  }

  /**
   * The body of the subclasses' `connect()`: the shared checks, then the
   * listener's first connection; a failure closes the store and rejects
   * (`GATEHOUSE_POSTGRES_CONNECT` for the listener).
   */
  protected async open (settings: ConnectOptions): Promise<void> {
    await PostgresStore.connected(this, settings)
    try {
      await this.#listener.start()
    } catch (err) {
      await this.close()
      throw new GATEHOUSE_POSTGRES_CONNECT(`${this.options.store} (change listener)`, poolAddress(this.options), (err as Error).message, { cause: err })
    }
  }

  // Payloads are `<kind>:<name>`; names may hold colons (key ids never do,
  // identities never do either, but the split does not rely on it).
  #changed (payload: string): void {
    const colon = payload.indexOf(':')
    if (colon !== -1 && payload.slice(0, colon) === this.#kind) this.cache.invalidate(payload.slice(colon + 1))
  }

  /**
   * Whether the change listener is connected and answered its heartbeat
   * within the last second: while false, cached entries are trusted at
   * most 1 s (a readiness check may report it).
   */
  get listening (): boolean {
    return this.#listener.listening
  }

  /** How many entries the cache holds: with a row, and for names without one. */
  get cached (): { known: number, unknown: number } {
    return this.cache.size
  }

  /**
   * Runs a write, then drops `key` from this instance's cache (others hear
   * of it by notification). A value PostgreSQL refuses (SQLSTATE class 22)
   * is `GATEHOUSE_AUTH_STORE_INPUT` naming the row (`user alice`), not the
   * driver's error.
   */
  protected async changing<T> (key: string, write: () => Promise<T>): Promise<T> {
    try {
      return await refusingData(`${this.#kind} ${key}`, write)
    } finally {
      this.cache.invalidate(key)
    }
  }

  /** Stops listening, empties the cache, and ends the pool the store opened. */
  override async close (): Promise<void> {
    await this.#listener.close()
    this.cache.clear()
    await super.close()
  }
}
