import { afterFailure, type LockoutPolicy, type LockoutState } from './lockout-policy.js'
import type { LockoutStore } from './lockout-store.js'

/** Failed-login counters in this process's memory; bounded (LRU). */
export class MemoryLockoutStore implements LockoutStore {
  readonly #states = new Map<string, LockoutState>()
  readonly #max: number

  /** @param max keys kept at most (default 100000); the least recently failed go first */
  constructor (max = 100_000) {
    if (!Number.isInteger(max) || max < 1) throw new TypeError('MemoryLockoutStore max must be a positive integer')
    this.#max = max
  }

  lockedFor (key: string, now: number): number {
    const state = this.#states.get(key)
    return state === undefined || state.lockedUntil <= now ? 0 : Math.ceil((state.lockedUntil - now) / 1000)
  }

  fail (key: string, policy: LockoutPolicy, now: number): number {
    const next = afterFailure(this.#states.get(key), policy, now)
    this.#states.delete(key)
    this.#states.set(key, next)
    if (this.#states.size > this.#max) {
      const oldest = this.#states.keys().next().value
      if (oldest !== undefined) this.#states.delete(oldest)
    }
    return next.lockedUntil <= now ? 0 : Math.ceil((next.lockedUntil - now) / 1000)
  }

  reset (key: string): void {
    this.#states.delete(key)
  }
}
