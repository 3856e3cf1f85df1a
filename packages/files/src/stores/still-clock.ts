import { performance } from 'node:perf_hooks'

/**
 * The clock a file store judges stillness by (a lock no one touches, a last
 * line no one ends): this process's own monotonic clock, never a file's
 * mtime, which the writer's clock set (another host's may be minutes off).
 * An object so that tests can move it without touching
 * `performance.now()`, which their own hang ceilings read. D-AUTH-39.
 */
export const stillClock = { now: (): number => performance.now() }

/**
 * How long something has stayed as it is, as this process has watched it:
 * `look(state)` at each look; the time restarts whenever the state differs
 * from the last one seen (or the first look).
 */
export class Stillness<S> {
  #seen: S | undefined
  #since = 0
  readonly #same: (a: S, b: S) => boolean

  constructor (same: (a: S, b: S) => boolean) {
    this.#same = same
  }

  /** Records `state`; returns for how long (ms) it has been unchanged. */
  look (state: S): number {
    const now = stillClock.now()
    if (this.#seen === undefined || !this.#same(state, this.#seen)) this.#since = now
    this.#seen = state
    return now - this.#since
  }

  /** Counts what was seen last as a change (a takeover found the lock moved). */
  restart (): void {
    this.#since = stillClock.now()
  }
}
