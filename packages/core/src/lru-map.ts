import { GATEHOUSE_CORE_INVALID_OPTIONS } from './errors.js'

/**
 * A Map with a size bound: when an insert would exceed `max`, the least
 * recently used entry goes (and `onEvict` hears of it, so a store can keep
 * its secondary indexes right). Every memory store and cache uses this one
 * class, so "bounded" means the same thing everywhere.
 *
 * A Map iterates in insertion order; re-inserting on use keeps the least
 * recently used key first, so eviction is O(1): the oldest key is found by
 * an iterator kept from one eviction to the next (a fresh one would walk
 * every slot deleted since V8 last compacted the Map's table: 68 µs per
 * eviction at 100 000 entries), and dropped after `max` inserts without a
 * step (a kept iterator holds every table V8 replaced since its last step).
 * D-CORE-02, D-CORE-07.
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, V>()
  readonly #max: number
  readonly #onEvict: ((key: K, value: V) => void) | undefined
  // Where the last eviction stopped: every entry before it is gone, since
  // inserts and re-inserts go to the end (see the class comment).
  #oldest: IterableIterator<K> | undefined
  #insertsSinceStep = 0

  /**
   * @param max entries kept at most; 0 keeps nothing (a disabled cache)
   * @param onEvict called with each entry dropped to make room (not on `delete`)
   */
  constructor (max: number, onEvict?: (key: K, value: V) => void) {
    if (!Number.isInteger(max) || max < 0) {
      throw new GATEHOUSE_CORE_INVALID_OPTIONS('max', `must be an integer of 0 or more, got ${String(max)}`)
    }
    this.#max = max
    this.#onEvict = onEvict
  }

  /** The most entries this map keeps. */
  get max (): number {
    return this.#max
  }

  get size (): number {
    return this.#entries.size
  }

  /** The value for `key`, marking it most recently used. */
  get (key: K): V | undefined {
    const value = this.#entries.get(key)
    if (value === undefined) return undefined
    this.#entries.delete(key)
    this.#insert(key, value)
    return value
  }

  /** The value for `key` without changing its place. */
  peek (key: K): V | undefined {
    return this.#entries.get(key)
  }

  has (key: K): boolean {
    return this.#entries.has(key)
  }

  /** Stores `value` as the most recently used entry, evicting the least recently used beyond `max`. */
  set (key: K, value: V): void {
    if (this.#max === 0) return
    this.#entries.delete(key)
    this.#insert(key, value)
    if (this.#entries.size > this.#max) {
      let step = this.#oldest?.next()
      if (step === undefined || step.done === true) {
        this.#oldest = this.#entries.keys()
        step = this.#oldest.next()
      }
      this.#insertsSinceStep = 0
      const oldestKey = step.value as K
      const oldestValue = this.#entries.get(oldestKey) as V
      this.#entries.delete(oldestKey)
      this.#onEvict?.(oldestKey, oldestValue)
    }
  }

  #insert (key: K, value: V): void {
    this.#entries.set(key, value)
    if (++this.#insertsSinceStep > this.#max) this.#oldest = undefined
  }

  delete (key: K): boolean {
    return this.#entries.delete(key)
  }

  /** Entries from the least to the most recently used. */
  entries (): IterableIterator<[K, V]> {
    return this.#entries.entries()
  }
}
