import type { MaybePromise } from '@fastify-gatehouse/core'
import type { LockoutPolicy } from './lockout-policy.js'

/**
 * Where failed-login counters live. Keys name what is counted
 * (`identity:alice`, `address:203.0.113.9`). An attempt is claimed before
 * its password is checked and settled after, each step atomic, so that
 * concurrent attempts cannot all slip past one check (see `afterClaim`).
 * Several server instances share lockouts by sharing a store (a Redis one
 * does each call in one atomic round trip).
 * D-LOCKOUT-02: lives in auth so @fastify-gatehouse/redis can implement it without importing the server.
 */
export interface LockoutStore {
  /** Seconds `key` stays locked after `now` (ms); 0 when not locked. */
  lockedFor: (key: string, now: number) => MaybePromise<number>
  /**
   * Claims one attempt at `now`: resolves 0 when it may go ahead (it now
   * holds a place until settled), or the seconds to wait when refused (a
   * refusal is not counted).
   */
  claim: (key: string, policy: LockoutPolicy, now: number) => MaybePromise<number>
  /** Settles a claim as a failure at `now`; resolves with the seconds `key` is now locked (0 when not). */
  recordFailure: (key: string, policy: LockoutPolicy, now: number) => MaybePromise<number>
  /** Settles a claim as a success, keeping the key's failures (a client address). */
  refund: (key: string, policy: LockoutPolicy, now: number) => MaybePromise<void>
  /** Forgets `key`'s failures and claims (an identity, after its success). */
  reset: (key: string) => MaybePromise<void>
}
