import { LruMap } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from '../errors.js'
import { afterClaim, afterFailure, afterRefund, boundedPolicy, secondsUntil, type LockoutPolicy, type LockoutState } from './lockout-policy.js'
import type { LockoutStore } from './lockout-store.js'

/**
 * Failed-login counters in this process's memory, bounded by an
 * {@link LruMap} (the least recently changed key goes first). Every call is
 * synchronous, so a claim and its check of the count cannot interleave with
 * another request's.
 */
export class MemoryLockoutStore implements LockoutStore {
  readonly #states: LruMap<string, LockoutState>

  /**
   * @param max keys kept at most (default 100000); the least recently changed go first
   * D-LOCKOUT-06: many addresses can flush this LRU; several instances want RedisLockoutStore.
   */
  constructor (max = 100_000) {
    if (!Number.isInteger(max) || max < 1) throw new GATEHOUSE_AUTH_INVALID_CONFIG('MemoryLockoutStore max', 'must be a positive integer')
    this.#states = new LruMap(max)
  }

  // Reads peek: only a change makes a key recently used, so probing a key
  // (lockedFor) cannot keep it, or push out another. D-CORE-02.
  lockedFor (key: string, now: number): number {
    return secondsUntil(this.#states.peek(key)?.lockedUntil ?? 0, now)
  }

  claim (key: string, policy: LockoutPolicy, now: number): number {
    const { state, retryAfter } = afterClaim(this.#states.peek(key), boundedPolicy(policy), now)
    if (retryAfter === 0) this.#states.set(key, state)
    return retryAfter
  }

  recordFailure (key: string, policy: LockoutPolicy, now: number): number {
    const state = afterFailure(this.#states.peek(key), boundedPolicy(policy), now)
    this.#states.set(key, state)
    return secondsUntil(state.lockedUntil, now)
  }

  refund (key: string, policy: LockoutPolicy, now: number): void {
    const state = afterRefund(this.#states.peek(key), boundedPolicy(policy), now)
    if (state === undefined) this.#states.delete(key)
    else this.#states.set(key, state)
  }

  reset (key: string): void {
    this.#states.delete(key)
  }
}
