import { LruMap } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from '../errors.js'
import { afterClaim, afterFailure, afterRefund, boundedPolicy, secondsUntil, type LockoutPolicy, type LockoutState } from './lockout-policy.js'
import type { LockoutStore } from './lockout-store.js'

/** Options of {@link MemoryLockoutStore}. */
export interface MemoryLockoutStoreOptions {
  /** Keys not locked (counting failures) kept at most; the least recently changed go first. Default: 100000. */
  max?: number
  /** Keys locked at once kept at most; never evicted. While this many are locked, every other key is refused. Default: 100000. */
  maxLocked?: number
}

const DEFAULT_MAX = 100_000
// Locked entries examined per write for locks that ended (moved back among the open keys).
const SWEEP_STEP = 2
// Examined once more before a claim is refused because the locked keys are at their bound.
const SWEEP_WHEN_FULL = 256

function positive (value: unknown, name: string): number {
  if (!Number.isInteger(value) || (value as number) < 1) throw new GATEHOUSE_AUTH_INVALID_CONFIG(`MemoryLockoutStore ${name}`, 'must be a positive integer')
  return value as number
}

/**
 * Failed-login counters in this process's memory. Keys that are locked
 * live apart from the others and are never evicted: a flood of new keys (an
 * attacker with many addresses) pushes out only the least recently changed
 * keys that are not locked, so it cannot lift a lock. A lock that ends moves
 * its key back among the others (its failures still count). Memory is
 * bounded by `max` open keys plus `maxLocked` locked ones; when `maxLocked`
 * keys are locked at once, a claim of any other key is refused (fails closed)
 * until locks end. Every call is synchronous, so a claim and its check of
 * the count cannot interleave with another request's.
 * D-LOCKOUT-10: locked keys are never evicted; full of locks, it fails closed.
 */
export class MemoryLockoutStore implements LockoutStore {
  readonly #open: LruMap<string, LockoutState>
  readonly #locked = new Map<string, LockoutState>()
  readonly #maxLocked: number
  // Where the sweep of ended locks goes on from (insertion order).
  #sweep: IterableIterator<[string, LockoutState]> | undefined

  /**
   * @param options `{ max, maxLocked }`, or the old form: a number, `max` (keys not locked)
   */
  constructor (options: number | MemoryLockoutStoreOptions = {}) {
    const { max = DEFAULT_MAX, maxLocked = DEFAULT_MAX } = typeof options === 'number' ? { max: options } : options ?? {}
    this.#open = new LruMap(positive(max, 'max'))
    this.#maxLocked = positive(maxLocked, 'maxLocked')
  }

  /** Keys held: `open` (counting, not locked; evicted least recently changed first) and `locked` (never evicted). */
  get sizes (): { open: number, locked: number } {
    return { open: this.#open.size, locked: this.#locked.size }
  }

  // Reads peek: only a change makes a key recently used, so probing a key
  // (lockedFor) cannot keep it, or push out another. D-CORE-02.
  lockedFor (key: string, now: number): number {
    return secondsUntil(this.#peek(key)?.lockedUntil ?? 0, now)
  }

  claim (key: string, policy: LockoutPolicy, now: number): number {
    const bounded = boundedPolicy(policy)
    this.#sweepLocks(now, SWEEP_STEP)
    const before = this.#peek(key)
    if (this.#locked.size >= this.#maxLocked && !(before !== undefined && before.lockedUntil > now)) {
      this.#sweepLocks(now, SWEEP_WHEN_FULL)
      // D-LOCKOUT-10: no room to record another lock, so no password is checked.
      if (this.#locked.size >= this.#maxLocked) return Math.max(1, bounded.backoff)
    }
    const { state, retryAfter } = afterClaim(before, bounded, now)
    if (retryAfter === 0) this.#put(key, state, now)
    return retryAfter
  }

  recordFailure (key: string, policy: LockoutPolicy, now: number): number {
    const state = afterFailure(this.#peek(key), boundedPolicy(policy), now)
    // A lock is kept even past maxLocked: only claims already granted get here.
    this.#put(key, state, now)
    return secondsUntil(state.lockedUntil, now)
  }

  refund (key: string, policy: LockoutPolicy, now: number): void {
    const state = afterRefund(this.#peek(key), boundedPolicy(policy), now)
    if (state === undefined) this.reset(key)
    else this.#put(key, state, now)
  }

  reset (key: string): void {
    this.#open.delete(key)
    this.#locked.delete(key)
  }

  #peek (key: string): LockoutState | undefined {
    return this.#locked.get(key) ?? this.#open.peek(key)
  }

  // A locked state among the locked keys, any other among the open ones (most recently changed).
  #put (key: string, state: LockoutState, now: number): void {
    if (state.lockedUntil > now) {
      this.#open.delete(key)
      this.#locked.set(key, state)
    } else {
      this.#locked.delete(key)
      this.#open.set(key, state)
    }
  }

  /** Examines up to `budget` locked keys, moving those whose lock has ended back among the open keys. */
  #sweepLocks (now: number, budget: number): void {
    for (let i = 0; i < budget && this.#locked.size > 0; i++) {
      let step = this.#sweep?.next()
      if (step === undefined || step.done === true) {
        this.#sweep = this.#locked.entries()
        step = this.#sweep.next()
        if (step.done === true) return
      }
      const [key, state] = step.value
      if (state.lockedUntil <= now) {
        this.#locked.delete(key)
        this.#open.set(key, state)
      }
    }
  }
}
