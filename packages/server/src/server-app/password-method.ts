import type { FastifyInstance } from 'fastify'
import type { Session } from '@fastify-gatehouse/session'
import { HttpError, safeNextPath } from '@fastify-gatehouse/core'
import { MemoryLockoutStore, type LockoutPolicy, type LockoutStore, type UserStore, type VerifiedUser } from '@fastify-gatehouse/auth'
import type { AuthMethod, LoginMethodDescription } from './auth-method.js'
import { acceptFormBodies, isBrowserForm } from './form-body.js'

/** Lockout settings of password logins (`serverApp.login`). */
export interface LoginOptions {
  /** Failures of one identity before it is locked. Default: 5. */
  maxAttempts?: number
  /** Seconds of the first lock, doubled by each later failure. Default: 30. */
  backoff?: number
  /** Failures from one client address before it is locked. Default: 4 × maxAttempts. */
  addressMaxAttempts?: number
  /** Seconds without failures after which they are forgotten. Default: 3600. */
  resetAfter?: number
  /** Where counters live. Default: a `MemoryLockoutStore` (one process). */
  store?: LockoutStore
}

/** Options of {@link PasswordMethod}. */
export interface PasswordMethodOptions extends LoginOptions {
  users: UserStore
  /** Shown on the login page. Default: `Password`. */
  label?: string
  /** Clock (ms), for tests. Default: `Date.now`. */
  now?: () => number
}

export const LOCKED = 'GATEHOUSE_SERVER_LOCKED'
export const INVALID_LOGIN = 'GATEHOUSE_SERVER_INVALID_LOGIN'
export const BAD_LOGIN_REQUEST = 'GATEHOUSE_SERVER_BAD_LOGIN_REQUEST'

interface LoginBody { identity?: unknown, password?: unknown, next?: unknown, return_session_id?: unknown }
// The fields the login page's form and script send, and the API client's
// return_session_id; any other is refused (400
// GATEHOUSE_SERVER_UNKNOWN_FIELD). Their values are checked by the handler,
// so a missing or malformed one keeps its own answer (D-SERVER-09).
const LOGIN_BODY = { type: ['object', 'null'], additionalProperties: false, properties: { identity: {}, password: {}, next: {}, return_session_id: {} } }

/**
 * Sign-in with identity and password against a `UserStore`:
 * `POST <prefix>/login`, JSON or form body. Failed attempts are counted per
 * identity and per client address; while either is locked the answer is 429
 * with Retry-After. Unknown identities are counted and timed like known ones.
 */
export class PasswordMethod implements AuthMethod {
  readonly id = 'password'
  readonly #users: UserStore
  readonly #label: string
  readonly #store: LockoutStore
  readonly #identityPolicy: LockoutPolicy
  readonly #addressPolicy: LockoutPolicy
  readonly #now: () => number

  constructor (options: PasswordMethodOptions) {
    if (options?.users === undefined || typeof options.users.verify !== 'function') throw new TypeError('PasswordMethod needs a UserStore as users')
    const maxAttempts = options.maxAttempts ?? 5
    const backoff = options.backoff ?? 30
    const resetAfter = options.resetAfter ?? 3600
    for (const [name, value] of Object.entries({ maxAttempts, backoff, resetAfter, addressMaxAttempts: options.addressMaxAttempts ?? 1 })) {
      if (!(typeof value === 'number' && value > 0 && Number.isFinite(value))) throw new TypeError(`serverApp.login.${name} must be a positive number`)
    }
    const store = options.store
    if (store !== undefined && !['lockedFor', 'claim', 'recordFailure', 'refund', 'reset'].every((m) => typeof (store as unknown as Record<string, unknown>)[m] === 'function')) {
      throw new TypeError('serverApp.login.store must be a LockoutStore (lockedFor, claim, recordFailure, refund, reset)')
    }
    this.#users = options.users
    this.#label = options.label ?? 'Password'
    this.#store = options.store ?? new MemoryLockoutStore()
    this.#identityPolicy = { maxAttempts, backoff, resetAfter }
    // D-LOCKOUT-01: one office NAT is not locked by a few typos; one address cannot lock many accounts.
    this.#addressPolicy = { maxAttempts: options.addressMaxAttempts ?? maxAttempts * 4, backoff, resetAfter }
    this.#now = options.now ?? Date.now
  }

  describe (prefix: string): LoginMethodDescription {
    return { id: this.id, kind: 'form', label: this.#label, action: `${prefix}/login` }
  }

  register (app: FastifyInstance): void {
    acceptFormBodies(app)
    // csrf 'always': a forged sign-in (login CSRF) carries no session cookie yet (D-CSRF-04).
    app.post<{ Body: LoginBody }>('/login', { config: { csrf: 'always' }, schema: { body: LOGIN_BODY } }, async (request, reply) => {
      const session: Session | undefined = request.scope.session
      if (session === undefined) throw new HttpError(500, 'The session component is not on')
      const { identity, password, next, return_session_id: returnSessionId } = (request.body ?? {}) as LoginBody
      // Without JavaScript a failure goes back to the page, which shows a
      // message chosen by a fixed code (D-SERVER-01).
      const browser = isBrowserForm(request.headers)
      const backToPage = (error: string, retry?: number) => reply.code(303)
        .header('location', `${app.prefix}/login_page?error=${error}${retry === undefined ? '' : `&retry=${retry}`}&next=${encodeURIComponent(safeNextPath(next))}`)
        .send()
      if (typeof identity !== 'string' || identity === '' || identity.length > 200 ||
        typeof password !== 'string' || password === '' || password.length > 1024) {
        if (browser) return backToPage('missing')
        throw new HttpError(400, 'identity and password are required', { code: BAD_LOGIN_REQUEST })
      }
      const attempt = await this.#claim(identity, request.ip)
      if (attempt.retryAfter > 0) {
        if (browser) return backToPage('locked', attempt.retryAfter)
        throw new HttpError(429, `Too many failed sign-ins; try again in ${attempt.retryAfter} s`, { code: LOCKED, headers: { 'retry-after': String(attempt.retryAfter) } })
      }
      const user = await this.#verify(attempt, identity, password)
      if (user === null) {
        if (browser) return backToPage('invalid')
        throw new HttpError(401, 'Invalid identity or password', { code: INVALID_LOGIN })
      }
      session.login(user.identity, user.tags, { via: this.id, stamp: user.stamp })
      // The answer sets the session cookie (and may name the id): never cached.
      reply.header('cache-control', 'no-store')
      if (browser) return reply.code(303).header('location', safeNextPath(next)).send()
      // Only an API client that asks gets the id in the body: the login
      // page's script does not, so page JavaScript never holds it (the
      // cookie is HttpOnly). D-SERVER-07.
      return returnSessionId === true
        ? { identity: user.identity, tags: user.tags, session_id: session.id }
        : { identity: user.identity, tags: user.tags }
    })
  }

  /**
   * Claims the attempt for the client address, then for the identity
   * (DESIGN §10: counted before the password is checked). A refusal for
   * the identity gives the address its place back.
   * D-LOCKOUT-03: the address first; a refused identity gives the address its place back.
   */
  async #claim (identity: string, address: string): Promise<Attempt> {
    const attempt = { identityKey: `identity:${identity}`, addressKey: `address:${address}`, retryAfter: 0 }
    attempt.retryAfter = await this.#store.claim(attempt.addressKey, this.#addressPolicy, this.#now())
    if (attempt.retryAfter > 0) return attempt
    try {
      attempt.retryAfter = await this.#store.claim(attempt.identityKey, this.#identityPolicy, this.#now())
    } catch (err) {
      await this.#settle(this.#store.refund(attempt.addressKey, this.#addressPolicy, this.#now()))
      throw err
    }
    if (attempt.retryAfter > 0) await this.#settle(this.#store.refund(attempt.addressKey, this.#addressPolicy, this.#now()))
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
      user = await this.#users.verify(identity, password)
    } catch (err) {
      // The outcome is unknown: settle as a failure, never as a free attempt.
      await this.#failed(attempt)
      throw err
    }
    if (user === null) {
      await this.#failed(attempt)
      return null
    }
    await this.#store.reset(attempt.identityKey)
    await this.#store.refund(attempt.addressKey, this.#addressPolicy, this.#now())
    return user
  }

  async #failed (attempt: Attempt): Promise<void> {
    const now = this.#now()
    await this.#store.recordFailure(attempt.identityKey, this.#identityPolicy, now)
    await this.#store.recordFailure(attempt.addressKey, this.#addressPolicy, now)
  }

  /** Waits for a settling call whose failure must not hide the error being reported. */
  async #settle (call: unknown): Promise<void> {
    try {
      await call
    } catch {}
  }
}

interface Attempt { identityKey: string, addressKey: string, retryAfter: number }
