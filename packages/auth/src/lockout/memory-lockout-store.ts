import { afterClaim, afterFailure, afterRefund, secondsUntil, type LockoutPolicy, type LockoutState } from './lockout-policy.js'
import type { LockoutStore } from './lockout-store.js'

/**
 * Failed-login counters in this process's memory; bounded (LRU). Every
 * call is synchronous, so a claim and its check of the count cannot
 * interleave with another request's.
 */
export class MemoryLockoutStore implements LockoutStore {
  readonly #states = new Map<string, LockoutState>()
  readonly #max: number

  /**
   * @param max keys kept at most (default 100000); the least recently changed go first
   * D-LOCKOUT-06: many addresses can flush this LRU; several instances want RedisLockoutStore.
   */
  constructor (max = 100_000) {
    if (!Number.isInteger(max) || max < 1) throw new TypeError('MemoryLockoutStore max must be a positive integer')
    this.#max = max
  }

  lockedFor (key: string, now: number): number {
    return secondsUntil(this.#states.get(key)?.lockedUntil ?? 0, now)
  }

  claim (key: string, policy: LockoutPolicy, now: number): number {
    const { state, retryAfter } = afterClaim(this.#states.get(key), policy, now)
    if (retryAfter === 0) this.#keep(key, state)
    return retryAfter
  }

  recordFailure (key: string, policy: LockoutPolicy, now: number): number {
    const state = afterFailure(this.#states.get(key), policy, now)
    this.#keep(key, state)
    return secondsUntil(state.lockedUntil, now)
  }

  refund (key: string, policy: LockoutPolicy, now: number): void {
    const state = afterRefund(this.#states.get(key), policy, now)
    if (state === undefined) this.#states.delete(key)
    else this.#keep(key, state)
  }

  reset (key: string): void {
    this.#states.delete(key)
  }

  #keep (key: string, state: LockoutState): void {
    // Re-insert: Map order is the LRU order.
    this.#states.delete(key)
    this.#states.set(key, state)
    if (this.#states.size > this.#max) {
      const oldest = this.#states.keys().next().value
      if (oldest !== undefined) this.#states.delete(oldest)
    }
  }
}
