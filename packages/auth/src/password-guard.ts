import type { Avatar, CodedError } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_BUSY, GATEHOUSE_AUTH_INVALID_CONFIG, lockedOut, lockoutUnavailable } from './errors.js'
import { LOCKOUT_LIMITS, type LockoutPolicy } from './lockout/lockout-policy.js'
import type { LockoutStore } from './lockout/lockout-store.js'
import { MemoryLockoutStore } from './lockout/memory-lockout-store.js'
import { addressKey as addressKeyOf } from './lockout/address-key.js'
import { identityKey as identityKeyOf } from './lockout/identity-key.js'
import { callOut } from './outside-call.js'

/** Lockout of Basic passwords (off unless given): the keys and defaults of the server's login lockout. */
export interface BasicLockoutOptions {
  /** Where the counters live; share the server's to share its counters. Default: a `MemoryLockoutStore`. */
  store?: LockoutStore
  /** Failures of one identity before it is locked. Default: 5. */
  maxAttempts?: number
  /** Seconds of the first lock; each later failure doubles it (up to a day). Default: 30. */
  backoff?: number
  /** Failures from one client address before it is locked. Default: 4 × maxAttempts. */
  addressMaxAttempts?: number
  /** Seconds without a failure after which the failures are forgotten. Default: 3600. */
  resetAfter?: number
}

interface Lockout {
  readonly store: LockoutStore
  readonly identity: LockoutPolicy
  readonly address: LockoutPolicy
}

function whole (value: unknown, where: string, min: number, max: number, integer: boolean): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !(value >= min && value <= max) || (integer && !Number.isInteger(value))) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, `must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`)
  }
  return value
}

/** The lockout of `options` (`basicLockout`), checked; undefined when off. */
export function resolveLockout (options: BasicLockoutOptions | undefined): Lockout | undefined {
  if (options === undefined) return undefined
  if (options === null || typeof options !== 'object') throw new GATEHOUSE_AUTH_INVALID_CONFIG('basicLockout', 'must be an object ({} for the defaults)')
  const { store } = options
  if (store !== undefined && !(['claim', 'recordFailure', 'refund', 'reset'] as const).every((m) => typeof (store as Partial<LockoutStore> | null)?.[m] === 'function')) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG('basicLockout.store', 'must be a LockoutStore (claim, recordFailure, refund, reset)')
  }
  const maxAttempts = whole(options.maxAttempts, 'basicLockout.maxAttempts', 1, LOCKOUT_LIMITS.maxAttempts, true) ?? 5
  const backoff = whole(options.backoff, 'basicLockout.backoff', 0.001, LOCKOUT_LIMITS.backoff, false) ?? 30
  const resetAfter = whole(options.resetAfter, 'basicLockout.resetAfter', 0.001, LOCKOUT_LIMITS.resetAfter, false) ?? 3600
  const addressMaxAttempts = whole(options.addressMaxAttempts, 'basicLockout.addressMaxAttempts', 1, LOCKOUT_LIMITS.maxAttempts, true) ??
    Math.min(4 * maxAttempts, LOCKOUT_LIMITS.maxAttempts)
  return {
    store: store ?? new MemoryLockoutStore(),
    identity: { maxAttempts, backoff, resetAfter },
    address: { maxAttempts: addressMaxAttempts, backoff, resetAfter }
  }
}

function busy (): CodedError {
  return new GATEHOUSE_AUTH_BUSY()
}

function locked (retryAfter: number): CodedError {
  return lockedOut(retryAfter)
}

// A settling call whose failure (thrown or rejected) must not hide the outcome being reported.
async function settle (call: () => unknown): Promise<void> {
  try {
    await call()
  } catch {}
}

type LockoutCall = 'claim' | 'recordFailure' | 'refund' | 'reset'

const LOCKOUT_FAILURE = Object.freeze({ other: lockoutUnavailable })

/**
 * A call of the lockout store, within `ms`: a hang is a 503
 * `GATEHOUSE_AUTH_CALLBACK_TIMEOUT`, a throw (other than the store's own
 * coded error it means to be answered, e.g. Redis's 503) a 503
 * `GATEHOUSE_AUTH_LOCKOUT_UNAVAILABLE`: an attempt that cannot be counted
 * is refused, before the password check as after it (D-LOCKOUT-08).
 */
export function lockoutCall<T> (call: LockoutCall, ms: number, fn: () => T | PromiseLike<T>): T | Promise<T> {
  return callOut(`LockoutStore.${call}`, ms, fn, LOCKOUT_FAILURE)
}

/** The client address of a Fastify request, when there is one. */
function addressOf (request: unknown): string | undefined {
  const ip = (request as { ip?: unknown } | null | undefined)?.ip
  return typeof ip === 'string' && ip !== '' ? ip : undefined
}

/**
 * What every Basic password check that misses the cache goes through: at
 * most `concurrency` in flight (one more is refused at once with 503 and
 * `Retry-After`, never queued), and, with a lockout, the server login's
 * claim-then-settle counting per identity and per client address (DESIGN
 * §10), under the same keys (`identity:<id>`, `address:<ip>`).
 * Each call of the lockout store has `timeoutMs` to answer (D-AUTH-62).
 * D-AUTH-43 (bounded Basic verifications), D-AUTH-44 (Basic lockout, opt-in).
 */
export class PasswordGuard {
  readonly #limit: number
  readonly #lockout: Lockout | undefined
  readonly #now: () => number
  readonly #timeoutMs: number
  #inFlight = 0

  constructor (limit: number, lockout: Lockout | undefined, now: () => number, timeoutMs: number) {
    this.#limit = limit
    this.#lockout = lockout
    this.#now = now
    this.#timeoutMs = timeoutMs
  }

  /** Whether failed passwords lock (`basicLockout` is on). */
  get locks (): boolean {
    return this.#lockout !== undefined
  }

  /** Checks in flight now. */
  get inFlight (): number {
    return this.#inFlight
  }

  /**
   * Runs `verify` (the caller when the password is right, else null) for
   * `identity` under the bound and the lockout. Rejects with 503
   * `GATEHOUSE_AUTH_BUSY` or 429 `GATEHOUSE_AUTH_LOCKED`, or with the 503
   * of a lockout store that failed or hung; null stays null. The slot is
   * free the moment the check settles, a timed-out one included.
   */
  async check (identity: string, request: unknown, verify: () => Promise<Avatar | null>): Promise<Avatar | null> {
    if (this.#inFlight >= this.#limit) throw busy()
    this.#inFlight++
    try {
      const lockout = this.#lockout
      if (lockout === undefined) return await verify()
      return await this.#locked(lockout, identity, addressOf(request), verify)
    } finally {
      this.#inFlight--
    }
  }

  async #locked (lockout: Lockout, identity: string, address: string | undefined, verify: () => Promise<Avatar | null>): Promise<Avatar | null> {
    const { store } = lockout
    const ms = this.#timeoutMs
    const identityKey = identityKeyOf(identity)
    const addressKey = address === undefined ? undefined : addressKeyOf(address)
    // The address first; a refused identity gives the address its place back (D-LOCKOUT-03).
    if (addressKey !== undefined) {
      const wait = await lockoutCall('claim', ms, () => store.claim(addressKey, lockout.address, this.#now()))
      if (wait > 0) throw locked(wait)
    }
    let wait: number
    try {
      wait = await lockoutCall('claim', ms, () => store.claim(identityKey, lockout.identity, this.#now()))
    } catch (err) {
      if (addressKey !== undefined) await settle(() => lockoutCall('refund', ms, () => store.refund(addressKey, lockout.address, this.#now())))
      throw err
    }
    if (wait > 0) {
      if (addressKey !== undefined) await settle(() => lockoutCall('refund', ms, () => store.refund(addressKey, lockout.address, this.#now())))
      throw locked(wait)
    }
    const failed = async (): Promise<void> => {
      const now = this.#now()
      await lockoutCall('recordFailure', ms, () => store.recordFailure(identityKey, lockout.identity, now))
      if (addressKey !== undefined) await lockoutCall('recordFailure', ms, () => store.recordFailure(addressKey, lockout.address, now))
    }
    let avatar: Avatar | null
    try {
      avatar = await verify()
    } catch (err) {
      // The outcome is unknown: settled as a failure, never as a free attempt;
      // not awaited, so a hung check frees its slot at once (D-AUTH-62).
      settle(failed) // never rejects
      throw err
    }
    if (avatar === null) {
      await failed()
      return null
    }
    // D-LOCKOUT-04: a success forgets the identity's failures, not the address's.
    await lockoutCall('reset', ms, () => store.reset(identityKey))
    if (addressKey !== undefined) await lockoutCall('refund', ms, () => store.refund(addressKey, lockout.address, this.#now()))
    return avatar
  }
}
