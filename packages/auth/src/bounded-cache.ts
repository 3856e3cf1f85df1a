/**
 * A map with a size bound (least recently used entries go first) and a
 * per-entry expiry. Used for verified credentials, so a cache hit never
 * outlives what was verified.
 */
export class BoundedCache<V> {
  readonly #max: number
  readonly #entries = new Map<string, { value: V, expiresAt: number }>()

  /** @param max entries kept at most (0 disables the cache) */
  constructor (max: number) {
    this.#max = max
  }

  /** The value for `key`, or undefined when absent or expired at `now` (ms). */
  get (key: string, now: number): V | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= now) {
      this.#entries.delete(key)
      return undefined
    }
    // Re-insert: Map keeps insertion order, so the oldest key is the LRU.
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    return entry.value
  }

  /** Stores `value` until `expiresAt` (ms). */
  set (key: string, value: V, expiresAt: number): void {
    if (this.#max === 0) return
    this.#entries.delete(key)
    this.#entries.set(key, { value, expiresAt })
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value
      if (oldest !== undefined) this.#entries.delete(oldest)
    }
  }

  /** Forgets every entry (e.g. after a store changed). */
  clear (): void {
    this.#entries.clear()
  }

  get size (): number {
    return this.#entries.size
  }
}
