/** When failed logins lock a key, and for how long. */
export interface LockoutPolicy {
  /** Failures before the first lock. */
  readonly maxAttempts: number
  /** Seconds of the first lock; each later failure doubles it. */
  readonly backoff: number
  /** Seconds without a failure after which a key's failures are forgotten. */
  readonly resetAfter: number
}

/** The longest lock, whatever the count: one day. */
export const MAX_LOCK_SECONDS = 86_400

/** A key's failures and lock; times in milliseconds. */
export interface LockoutState {
  failures: number
  lockedUntil: number
  lastFailure: number
}

/** Seconds of the lock that the `failures`-th failure starts (0 below the threshold). */
export function lockSeconds (failures: number, policy: LockoutPolicy): number {
  if (failures < policy.maxAttempts) return 0
  return Math.min(MAX_LOCK_SECONDS, policy.backoff * 2 ** Math.min(failures - policy.maxAttempts, 30))
}

/** The state after one more failure at `now`; a locked key is not counted (locked attempts do not extend the lock). */
export function afterFailure (state: LockoutState | undefined, policy: LockoutPolicy, now: number): LockoutState {
  const current = state === undefined || now - state.lastFailure > policy.resetAfter * 1000 ? undefined : state
  if (current !== undefined && current.lockedUntil > now) return current
  const failures = (current?.failures ?? 0) + 1
  const seconds = lockSeconds(failures, policy)
  return { failures, lockedUntil: seconds === 0 ? 0 : now + seconds * 1000, lastFailure: now }
}
