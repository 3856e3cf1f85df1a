/** When failed logins lock a key, and for how long. */
export interface LockoutPolicy {
  /** Failures before the first lock. */
  readonly maxAttempts: number
  /** Seconds of the first lock; each later failure doubles it. */
  readonly backoff: number
  /** Seconds without a failure after which a key's failures are forgotten. */
  readonly resetAfter: number
}

/**
 * The longest lock, whatever the count: one day.
 * D-LOCKOUT-01.
 */
export const MAX_LOCK_SECONDS = 86_400

/**
 * The largest lockout options every store can hold: the PostgreSQL step
 * takes maxAttempts as a 32-bit integer and resetAfter in milliseconds as
 * a bigint, Redis's PEXPIRE refuses an expiry past 2^63 ms, and a backoff
 * past the longest lock changes nothing. The server refuses larger options
 * at boot, naming them; a store given a larger policy directly holds it to
 * these ({@link boundedPolicy}), so the memory, Redis and PostgreSQL stores
 * answer alike.
 * D-LOCKOUT-07.
 */
export const LOCKOUT_LIMITS = Object.freeze({
  /** Failures before the first lock (of an identity or of a client address). */
  maxAttempts: 1_000_000,
  /** Seconds of the first lock: the longest lock. */
  backoff: MAX_LOCK_SECONDS,
  /** Seconds a key's failures are remembered: a year. */
  resetAfter: 365 * 86_400
})

/** `policy` held to {@link LOCKOUT_LIMITS}; every store applies it to the policy it is given. */
export function boundedPolicy (policy: LockoutPolicy): LockoutPolicy {
  const { maxAttempts, backoff, resetAfter } = LOCKOUT_LIMITS
  if (policy.maxAttempts <= maxAttempts && policy.backoff <= backoff && policy.resetAfter <= resetAfter) return policy
  return {
    maxAttempts: Math.min(policy.maxAttempts, maxAttempts),
    backoff: Math.min(policy.backoff, backoff),
    resetAfter: Math.min(policy.resetAfter, resetAfter)
  }
}

/**
 * Milliseconds after which an unsettled claim no longer holds a place: the
 * process that made it died between the claim and its outcome. A password
 * check takes well under a second; a minute leaves room for a busy machine.
 * D-LOCKOUT-03; each claim lapses on its own (D-LOCKOUT-06).
 */
export const CLAIM_TTL_MS = 60_000

/** A key's failures, lock and attempts in flight; times in milliseconds. */
export interface LockoutState {
  /** Failures recorded (claims settled as failures). */
  failures: number
  lockedUntil: number
  lastFailure: number
  /** When each attempt claimed and not yet settled was claimed, oldest first. */
  claims: number[]
}

/** What a claim decided: the state to keep, and 0 (go ahead) or the seconds to wait. */
export interface ClaimOutcome {
  readonly state: LockoutState
  readonly retryAfter: number
}

const empty = (): LockoutState => ({ failures: 0, lockedUntil: 0, lastFailure: 0, claims: [] })

/** Seconds of the lock that the `failures`-th failure starts (0 below the threshold). */
export function lockSeconds (failures: number, policy: LockoutPolicy): number {
  if (failures < policy.maxAttempts) return 0
  return Math.min(MAX_LOCK_SECONDS, policy.backoff * 2 ** Math.min(failures - policy.maxAttempts, 30))
}

/** Whole seconds from `now` to `until` (0 when past), rounded up. */
export function secondsUntil (until: number, now: number): number {
  return until <= now ? 0 : Math.ceil((until - now) / 1000)
}

/**
 * The state as it stands at `now`. Failures are forgotten after a quiet
 * `resetAfter` counted from the later of the last failure and the end of
 * the lock, so a lock longer than `resetAfter` does not wipe the count the
 * moment it ends (the backoff keeps doubling up to the cap). Each claim
 * stops holding a place `CLAIM_TTL_MS` after it was made.
 * D-LOCKOUT-06.
 */
function current (state: LockoutState | undefined, policy: LockoutPolicy, now: number): LockoutState {
  if (state === undefined) return empty()
  const next = { ...state, claims: state.claims.filter((at) => now - at <= CLAIM_TTL_MS) }
  if (next.failures > 0 && next.lockedUntil <= now && now - Math.max(next.lastFailure, next.lockedUntil) > policy.resetAfter * 1000) {
    next.failures = 0
    next.lockedUntil = 0
  }
  return next
}

/**
 * Claims one attempt at `now`, before the password is checked (DESIGN §10:
 * lockout is a claim, not a check). Refused while locked, and while the
 * attempts in flight already fill what is left of the window: below the
 * threshold `maxAttempts - failures` may run at once; past an expired lock,
 * one at a time. So no more than `maxAttempts` checks run per window however
 * many arrive together. A refusal is not counted; its wait is the lock, or
 * the lock the attempts in flight would start if they all fail.
 * D-LOCKOUT-03: a count of claims in flight beside the failures, not a provisional failure.
 */
export function afterClaim (state: LockoutState | undefined, policy: LockoutPolicy, now: number): ClaimOutcome {
  const next = current(state, policy, now)
  if (next.lockedUntil > now) return { state: next, retryAfter: secondsUntil(next.lockedUntil, now) }
  const room = next.failures < policy.maxAttempts ? policy.maxAttempts - next.failures : 1
  if (next.claims.length >= room) {
    return { state: next, retryAfter: Math.max(1, Math.ceil(lockSeconds(next.failures + next.claims.length, policy))) }
  }
  next.claims.push(now)
  return { state: next, retryAfter: 0 }
}

/**
 * Settles a claim as a failure at `now`, the moment the check failed: the
 * lock it reaches counts from here, not from the start of the request. A
 * failure whose claim was dropped by a concurrent success (`reset`) still
 * counts.
 * D-LOCKOUT-05.
 */
export function afterFailure (state: LockoutState | undefined, policy: LockoutPolicy, now: number): LockoutState {
  const next = current(state, policy, now)
  // Which claim this settles is not known: the oldest goes, so the others
  // hold their places at least as long as their own.
  next.claims.shift()
  next.failures += 1
  next.lastFailure = now
  const seconds = lockSeconds(next.failures, policy)
  if (seconds > 0) next.lockedUntil = Math.max(next.lockedUntil, Math.floor(now + seconds * 1000))
  return next
}

/**
 * Settles a claim as a success without forgetting the key's failures (a client address after one good login).
 * D-LOCKOUT-04.
 */
export function afterRefund (state: LockoutState | undefined, policy: LockoutPolicy, now: number): LockoutState | undefined {
  if (state === undefined) return undefined
  const next = current(state, policy, now)
  next.claims.shift()
  return next.claims.length === 0 && next.failures === 0 && next.lockedUntil <= now ? undefined : next
}
