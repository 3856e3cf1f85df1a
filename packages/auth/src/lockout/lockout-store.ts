import type { MaybePromise } from '../api-key.js'
import type { LockoutPolicy } from './lockout-policy.js'

/**
 * Where failed-login counters live. Keys name what is counted
 * (`identity:alice`, `address:203.0.113.9`). Several server instances share
 * lockouts by sharing a store (a Redis one does each call in one atomic
 * round trip).
 */
export interface LockoutStore {
  /** Seconds `key` stays locked after `now` (ms); 0 when not locked. */
  lockedFor: (key: string, now: number) => MaybePromise<number>
  /** Counts a failure at `now` under `policy`; resolves with the seconds `key` is now locked (0 when not). */
  fail: (key: string, policy: LockoutPolicy, now: number) => MaybePromise<number>
  /** Forgets `key`'s failures (after a success). */
  reset: (key: string) => MaybePromise<void>
}
