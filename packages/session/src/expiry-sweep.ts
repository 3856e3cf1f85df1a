import type { LruMap } from '@fastify-gatehouse/core'

/** Entries a {@link ExpirySweep} examines per step, in each map it sweeps. */
export const SWEEP_STEP = 4

/**
 * A round-robin cursor over an {@link LruMap} of records with an
 * `expiresAt`, so expired records go without a timer (nothing to close):
 * each `step` examines the next few entries, dropping the expired ones, and
 * starts over from the least recently used end when it reaches the other.
 * O(1) per step, and every entry is examined within one pass of
 * `map.size / SWEEP_STEP` steps.
 *
 * The cursor is the Map's own live iterator: an entry deleted before the
 * cursor reaches it is skipped, an entry re-inserted (a use moves it to the
 * most recent end) is met again later in the pass, and an entry that no one
 * uses (an expired one) keeps its place, so the cursor always gets to it.
 * D-SESSION-16.
 */
export class ExpirySweep<V extends { readonly expiresAt: number }> {
  readonly #map: LruMap<string, V>
  readonly #drop: (key: string) => void
  #cursor: Iterator<[string, V]> | null = null

  /**
   * @param map the records swept
   * @param drop removes an expired record (and whatever indexes it)
   */
  constructor (map: LruMap<string, V>, drop: (key: string) => void) {
    this.#map = map
    this.#drop = drop
  }

  /** Examines up to `count` entries after the cursor; returns how many were expired and dropped. */
  step (now: number, count = SWEEP_STEP): number {
    let dropped = 0
    for (let examined = 0; examined < count; examined++) {
      this.#cursor ??= this.#map.entries()
      const next = this.#cursor.next()
      if (next.done === true) {
        // One pass done; the next step starts a new one (a small map is not swept twice in a step).
        this.#cursor = null
        break
      }
      const [key, record] = next.value
      if (record.expiresAt <= now) {
        this.#drop(key)
        dropped++
      }
    }
    return dropped
  }

  /** Examines every entry now (O(n)); returns how many were dropped. */
  all (now: number): number {
    this.#cursor = null
    let dropped = 0
    // Deleting the entry just met is safe for a Map iterator.
    for (const [key, record] of this.#map.entries()) {
      if (record.expiresAt <= now) {
        this.#drop(key)
        dropped++
      }
    }
    return dropped
  }
}
