import { LruMap } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from '../errors.js'
import { afterClaim, CLAIM_TTL_MS, afterFailure, afterRefund, boundedPolicy, secondsUntil, type LockoutPolicy, type LockoutState } from './lockout-policy.js'
import type { LockoutStore } from './lockout-store.js'

/** Options of {@link MemoryLockoutStore}. */
export interface MemoryLockoutStoreOptions {
  /** Keys not locked (counting failures) kept at most; the least recently changed go first. Default: 100000. */
  max?: number
  /** Keys that have been locked kept at most (each until `resetAfter` of quiet after its lock); never evicted. While this many are kept, every other key is refused. Default: 100000. */
  maxLocked?: number
}

const DEFAULT_MAX = 100_000

/** A key that has been locked, kept apart until `until` (ms). */
interface Guarded { state: LockoutState, until: number }

/**
 * Until when a key is kept among the locked keys: while it is locked and,
 * once it has reached `maxAttempts` failures, until its failures would be
 * forgotten anyway (`resetAfter` of quiet after its lock, its claims in
 * flight included); 0 for a key that has never been locked.
 * D-LOCKOUT-13: evicting a key that has been locked would reset its backoff.
 */
function guardedUntil (state: LockoutState, policy: LockoutPolicy): number {
  if (state.failures < policy.maxAttempts) return state.lockedUntil
  const quiet = Math.max(state.lastFailure, state.lockedUntil) + policy.resetAfter * 1000
  return Math.max(state.lockedUntil, quiet, (state.claims.at(-1) ?? 0) + CLAIM_TTL_MS)
}

// Guarded entries examined per write for keys whose failures are forgotten (then dropped).
const SWEEP_STEP = 2
// Examined once more before a claim is refused because the locked keys are at their bound.
const SWEEP_WHEN_FULL = 256

function positive (value: unknown, name: string): number {
  if (!Number.isInteger(value) || (value as number) < 1) throw new GATEHOUSE_AUTH_INVALID_CONFIG(`MemoryLockoutStore ${name}`, 'must be a positive integer')
  return value as number
}

/**
 * Failed-login counters in this process's memory. Keys that have been
 * locked live apart from the others and are never evicted: a flood of new
 * keys (an attacker with many addresses) pushes out only the least recently
 * changed keys that have not been locked, so it can neither lift a lock nor
 * reset the doubling of the next one. A key that has been locked stays apart
 * until its failures are forgotten (`resetAfter` of quiet after its lock),
 * then it is dropped. Memory is bounded by `max` open keys plus `maxLocked`
 * guarded ones; when `maxLocked` keys are guarded at once, a claim of any
 * other key is refused (fails closed) until some are forgotten. Every call
 * is synchronous, so a claim and its check of
 * the count cannot interleave with another request's.
 * D-LOCKOUT-10: locked keys are never evicted; full of locks, it fails closed.
 * D-LOCKOUT-13: a key that has been locked is kept until `resetAfter` has passed.
 */
export class MemoryLockoutStore implements LockoutStore {
  readonly #open: LruMap<string, LockoutState>
  readonly #locked = new Map<string, Guarded>()
  readonly #maxLocked: number
  // Where the sweep of ended locks goes on from (insertion order).
  #sweep: IterableIterator<[string, Guarded]> | undefined

  /**
   * @param options `{ max, maxLocked }`, or the old form: a number, `max` (keys not locked)
   */
  constructor (options: number | MemoryLockoutStoreOptions = {}) {
    const { max = DEFAULT_MAX, maxLocked = DEFAULT_MAX } = typeof options === 'number' ? { max: options } : options ?? {}
    this.#open = new LruMap(positive(max, 'max'))
    this.#maxLocked = positive(maxLocked, 'maxLocked')
  }

  /** Keys held: `open` (counting, never locked; evicted least recently changed first) and `locked` (locked now or since their last `resetAfter`; never evicted). */
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
    if (this.#locked.size >= this.#maxLocked && !this.#locked.has(key)) {
      this.#sweepLocks(now, SWEEP_WHEN_FULL)
      // D-LOCKOUT-10: no room to record another lock, so no password is checked.
      if (this.#locked.size >= this.#maxLocked) return Math.max(1, bounded.backoff)
    }
    const { state, retryAfter } = afterClaim(before, bounded, now)
    if (retryAfter === 0) this.#put(key, state, bounded, now)
    return retryAfter
  }

  recordFailure (key: string, policy: LockoutPolicy, now: number): number {
    const bounded = boundedPolicy(policy)
    const state = afterFailure(this.#peek(key), bounded, now)
    // A lock is kept even past maxLocked: only claims already granted get here.
    this.#put(key, state, bounded, now)
    return secondsUntil(state.lockedUntil, now)
  }

  refund (key: string, policy: LockoutPolicy, now: number): void {
    const bounded = boundedPolicy(policy)
    const state = afterRefund(this.#peek(key), bounded, now)
    if (state === undefined) this.reset(key)
    else this.#put(key, state, bounded, now)
  }

  reset (key: string): void {
    this.#open.delete(key)
    this.#locked.delete(key)
  }

  #peek (key: string): LockoutState | undefined {
    return this.#locked.get(key)?.state ?? this.#open.peek(key)
  }

  // A state to guard among the locked keys, any other among the open ones (most recently changed).
  #put (key: string, state: LockoutState, policy: LockoutPolicy, now: number): void {
    const until = guardedUntil(state, policy)
    if (until > now) {
      this.#open.delete(key)
      this.#locked.set(key, { state, until })
    } else {
      this.#locked.delete(key)
      this.#open.set(key, state)
    }
  }

  /** Examines up to `budget` guarded keys, forgetting those whose failures are forgotten anyway (`resetAfter` passed). */
  #sweepLocks (now: number, budget: number): void {
    for (let i = 0; i < budget && this.#locked.size > 0; i++) {
      let step = this.#sweep?.next()
      if (step === undefined || step.done === true) {
        this.#sweep = this.#locked.entries()
        step = this.#sweep.next()
        if (step.done === true) return
      }
      const [key, { until }] = step.value
      if (until < now) this.#locked.delete(key)
    }
  }
}
