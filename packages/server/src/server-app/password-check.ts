import { addressKey, identityKey, lockoutCall, MemoryLockoutStore, storeCall, type LockoutPolicy, type LockoutStore, type UserStore, type VerifiedUser } from '@fastify-gatehouse/auth'
import type { ResolvedLoginOptions } from './options.js'

/** What a password check came to: the user, a wrong password (counted), or a lock (nothing checked). */
export type PasswordCheckResult =
  | { readonly outcome: 'ok', readonly user: VerifiedUser }
  | { readonly outcome: 'invalid' }
  | { readonly outcome: 'locked', readonly retryAfter: number }

interface Attempt { identityKey: string, addressKey: string, retryAfter: number }

/**
 * A user's password checked under the lockout: what `POST /login` and the
 * account's password change share, so that one counter per identity and
 * per client address covers both (a wrong current password counts as a
 * failed sign-in). DESIGN §10: each attempt is claimed before the password
 * is verified and settled after, so no more than `maxAttempts` passwords
 * are verified per window under any concurrency, on any instance sharing
 * the lockout store.
 *
 * Every call of the user store and the lockout store has
 * `callbackTimeout` to answer (503 `GATEHOUSE_AUTH_CALLBACK_TIMEOUT`), and
 * what one throws is replaced by a fresh error naming only its class,
 * status and code: it may quote the password (D-AUTH-62, D-AUTH-63). A
 * lockout store that fails is a coded 503, before the check as after it
 * (D-LOCKOUT-08).
 */
export class PasswordCheck {
  readonly users: UserStore
  readonly #store: LockoutStore
  readonly #identityPolicy: LockoutPolicy
  readonly #addressPolicy: LockoutPolicy
  readonly #now: () => number
  readonly #timeoutMs: number

  constructor (users: UserStore, login: ResolvedLoginOptions, now: () => number = Date.now) {
    const { maxAttempts, backoff, addressMaxAttempts, resetAfter, store } = login
    this.#timeoutMs = login.callbackTimeout * 1000
    this.users = users
    this.#store = store ?? new MemoryLockoutStore()
    this.#identityPolicy = { maxAttempts, backoff, resetAfter }
    // D-LOCKOUT-01: one office NAT is not locked by a few typos; one address cannot lock many accounts.
    this.#addressPolicy = { maxAttempts: addressMaxAttempts, backoff, resetAfter }
    this.#now = now
  }

  /**
   * Calls the user store (`UserStore.<method>`) within the limit; a throw
   * becomes a fresh error without its message (it may quote a password).
   */
  callUsers<T> (method: 'verify' | 'setPassword', fn: (users: UserStore) => Promise<T>): T | Promise<T> {
    return storeCall(`UserStore.${method}`, this.#timeoutMs, () => fn(this.users))
  }

  /** Checks `password` of `identity` asked from `address` (the client's), under the lockout. */
  async check (identity: string, password: string, address: string): Promise<PasswordCheckResult> {
    const attempt = await this.#claim(identity, address)
    if (attempt.retryAfter > 0) return { outcome: 'locked', retryAfter: attempt.retryAfter }
    const user = await this.#verify(attempt, identity, password)
    return user === null ? { outcome: 'invalid' } : { outcome: 'ok', user }
  }

  /**
   * Claims the attempt for the client address, then for the identity
   * (DESIGN §10: counted before the password is checked). A refusal for
   * the identity gives the address its place back.
   * D-LOCKOUT-03: the address first; a refused identity gives the address its place back.
   */
  async #claim (identity: string, address: string): Promise<Attempt> {
    const attempt = { identityKey: identityKey(identity), addressKey: addressKey(address), retryAfter: 0 }
    const ms = this.#timeoutMs
    attempt.retryAfter = await lockoutCall('claim', ms, () => this.#store.claim(attempt.addressKey, this.#addressPolicy, this.#now()))
    if (attempt.retryAfter > 0) return attempt
    try {
      attempt.retryAfter = await lockoutCall('claim', ms, () => this.#store.claim(attempt.identityKey, this.#identityPolicy, this.#now()))
    } catch (err) {
      await settle(() => this.#refundAddress(attempt))
      throw err
    }
    if (attempt.retryAfter > 0) await settle(() => this.#refundAddress(attempt))
    return attempt
  }

  /**
   * Checks the password of a claimed attempt and settles both claims. A
   * failure counts from the moment it is known (after scrypt), so a lock is
   * never shortened by the check's own time; a success forgets the
   * identity's failures but only gives back the address's claim (one good
   * account must not clear an address that sprays others).
   * D-LOCKOUT-04 and D-LOCKOUT-05.
   */
  async #verify (attempt: Attempt, identity: string, password: string): Promise<VerifiedUser | null> {
    let user: VerifiedUser | null
    try {
      user = await this.callUsers('verify', async (users) => await users.verify(identity, password))
    } catch (err) {
      // The outcome is unknown: settle as a failure, never as a free attempt;
      // not awaited, so a hung store costs the caller one limit, not three.
      settle(() => this.#failed(attempt)) // never rejects
      throw err
    }
    if (user === null) {
      await this.#failed(attempt)
      return null
    }
    // D-LOCKOUT-08: a store that fails here is a coded 503, as before the check.
    await lockoutCall('reset', this.#timeoutMs, () => this.#store.reset(attempt.identityKey))
    await this.#refundAddress(attempt)
    return user
  }

  async #refundAddress (attempt: Attempt): Promise<void> {
    await lockoutCall('refund', this.#timeoutMs, () => this.#store.refund(attempt.addressKey, this.#addressPolicy, this.#now()))
  }

  async #failed (attempt: Attempt): Promise<void> {
    const now = this.#now()
    const ms = this.#timeoutMs
    await lockoutCall('recordFailure', ms, () => this.#store.recordFailure(attempt.identityKey, this.#identityPolicy, now))
    await lockoutCall('recordFailure', ms, () => this.#store.recordFailure(attempt.addressKey, this.#addressPolicy, now))
  }
}

/** Runs a settling call whose failure (thrown or rejected) must not hide the error being reported. */
async function settle (call: () => unknown): Promise<void> {
  try {
    await call()
  } catch {}
}
