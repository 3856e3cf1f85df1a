import type { LruMap } from '@fastify-gatehouse/core'

/** Entries a {@link ExpirySweep} examines per step, in each map it sweeps. */
export const SWEEP_STEP = 4

/**
 * Expired records go without a timer (nothing to close): each `step`
 * examines the few least recently used entries of an {@link LruMap} of
 * records with an `expiresAt` and drops the expired ones. O(1) per step.
 *
 * From the least recently used end, with a new iterator every step: a
 * record no one uses drifts to that end as others are used, and an idle
 * deadline is counted from the last use, so that end is where idle records
 * expire first; reads move the busy records away from it, so traffic of any
 * mix never keeps the sweep from them. A record that reached its absolute
 * lifetime while still in use is dropped when it is next met (every read
 * checks `expiresAt`), or by this sweep once it stops being used. No
 * iterator is kept between steps: a live Map iterator left unadvanced holds
 * on to every table the Map outgrows, and a cursor the reads keep
 * overtaking never finishes a pass (both seen in review).
 * D-SESSION-16.
 */
export class ExpirySweep<V extends { readonly expiresAt: number }> {
  readonly #map: LruMap<string, V>
  readonly #drop: (key: string) => void

  /**
   * @param map the records swept
   * @param drop removes an expired record (and whatever indexes it)
   */
  constructor (map: LruMap<string, V>, drop: (key: string) => void) {
    this.#map = map
    this.#drop = drop
  }

  /** Examines the `count` least recently used entries; returns how many were expired and dropped. */
  step (now: number, count = SWEEP_STEP): number {
    const expired: string[] = []
    let examined = 0
    for (const [key, record] of this.#map.entries()) {
      if (record.expiresAt <= now) expired.push(key)
      if (++examined >= count) break
    }
    for (const key of expired) this.#drop(key)
    return expired.length
  }

  /** Examines every entry now (O(n)); returns how many were dropped. */
  all (now: number): number {
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
