import { LruMap } from '@fastify-gatehouse/core'

interface Entry<V> {
  readonly value: V
  readonly expiresAt: number
}

/**
 * A {@link LruMap} whose entries also expire: used for verified
 * credentials, so a cache hit never outlives what was verified (a JWT's
 * `exp`, the cache TTL).
 */
export class BoundedCache<V> {
  readonly #entries: LruMap<string, Entry<V>>

  /** @param max entries kept at most (0 disables the cache) */
  constructor (max: number) {
    this.#entries = new LruMap(max)
  }

  /** The value for `key`, or undefined when absent or expired at `now` (ms). */
  get (key: string, now: number): V | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= now) {
      this.#entries.delete(key)
      return undefined
    }
    return entry.value
  }

  /** Stores `value` until `expiresAt` (ms). */
  set (key: string, value: V, expiresAt: number): void {
    this.#entries.set(key, { value, expiresAt })
  }

  /** Forgets `key` (a credential whose user changed). */
  delete (key: string): void {
    this.#entries.delete(key)
  }

  get size (): number {
    return this.#entries.size
  }
}
