/** Slots looked at, at most, to choose the entry an insert into a full cache replaces. */
export const EVICTION_SAMPLE = 4

/**
 * A bounded cache of verified credentials (JWTs, Basic credentials) whose
 * entries also expire: a hit never outlives what was verified (a JWT's
 * `exp`, the cache TTL).
 *
 * Not an LRU: a working set one entry larger than an LRU cycles through it
 * with 0 % hits (each key is evicted just before it comes back), which is
 * what many clients polling in turn do. An insert into a full cache looks
 * at up to {@link EVICTION_SAMPLE} random slots and replaces the first that
 * is expired or was not read since it was last looked at (clearing the
 * "read" mark of those it passes over; the last one looked at otherwise):
 * a random eviction keeps most of a cyclic working set, the mark keeps the
 * keys read often, as an LRU would. O(1): entries sit in arrays, indexed by
 * a Map; a removal moves the last slot into the freed one. No timers.
 * D-AUTH-57.
 */
export class BoundedCache<V> {
  readonly #max: number
  readonly #random: () => number
  readonly #slots = new Map<string, number>()
  readonly #keys: string[] = []
  readonly #values: V[] = []
  readonly #expiresAt: number[] = []
  // 1 when read since the eviction sampling last passed over it.
  readonly #read: number[] = []

  /**
   * @param max entries kept at most (0 disables the cache)
   * @param random a uniform number in [0, 1), for tests. Default: `Math.random`.
   */
  constructor (max: number, random: () => number = Math.random) {
    this.#max = max
    this.#random = random
  }

  /** The value for `key`, or undefined when absent or expired at `now` (ms). */
  get (key: string, now: number): V | undefined {
    const slot = this.#slots.get(key)
    if (slot === undefined) return undefined
    if (this.#expiresAt[slot]! <= now) {
      this.#remove(slot)
      return undefined
    }
    this.#read[slot] = 1
    return this.#values[slot]
  }

  /**
   * Stores `value` until `expiresAt` (ms). In a full cache it replaces an
   * entry; `now` (ms) lets an expired one go first.
   */
  set (key: string, value: V, expiresAt: number, now = Number.NEGATIVE_INFINITY): void {
    if (this.#max === 0) return
    let slot = this.#slots.get(key)
    if (slot === undefined) {
      if (this.#keys.length < this.#max) {
        slot = this.#keys.length
      } else {
        slot = this.#victim(now)
        this.#slots.delete(this.#keys[slot]!)
      }
      this.#slots.set(key, slot)
      this.#keys[slot] = key
    }
    this.#values[slot] = value
    this.#expiresAt[slot] = expiresAt
    this.#read[slot] = 0
  }

  /**
   * {@link set}, except that once the cache is {@link full} a new key gets
   * in only when `gate` says it came back (a RepeatFilter's `repeated`,
   * asked only then): a stream of one-off keys cannot flush the entries in
   * use. One call for what a caller would otherwise ask as `full`, then `set`.
   * D-AUTH-61.
   */
  admit (key: string, value: V, expiresAt: number, now: number, gate: { repeated (key: string): boolean }): void {
    if (this.#max === 0 || (this.#keys.length >= this.#max && !gate.repeated(key))) return
    this.set(key, value, expiresAt, now)
  }

  /** Forgets `key` (a credential whose user changed). */
  delete (key: string): void {
    const slot = this.#slots.get(key)
    if (slot !== undefined) this.#remove(slot)
  }

  get size (): number {
    return this.#keys.length
  }

  /** Whether a new key would replace an entry (never with `max` 0: nothing is kept). */
  get full (): boolean {
    return this.#max > 0 && this.#keys.length >= this.#max
  }

  #victim (now: number): number {
    const count = this.#keys.length
    let slot = 0
    for (let i = 0; i < EVICTION_SAMPLE; i++) {
      slot = Math.floor(this.#random() * count)
      if (this.#expiresAt[slot]! <= now || this.#read[slot] === 0) return slot
      this.#read[slot] = 0
    }
    return slot
  }

  #remove (slot: number): void {
    const last = this.#keys.length - 1
    this.#slots.delete(this.#keys[slot]!)
    if (slot !== last) {
      const moved = this.#keys[last]!
      this.#keys[slot] = moved
      this.#values[slot] = this.#values[last]!
      this.#expiresAt[slot] = this.#expiresAt[last]!
      this.#read[slot] = this.#read[last]!
      this.#slots.set(moved, slot)
    }
    this.#keys.pop()
    this.#values.pop()
    this.#expiresAt.pop()
    this.#read.pop()
  }
}
