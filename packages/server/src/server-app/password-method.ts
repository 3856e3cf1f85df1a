import type { FastifyInstance } from 'fastify'
import type { Session } from '@fastify-gatehouse/session'
import { safeNextPath } from '@fastify-gatehouse/core'
import { MemoryLockoutStore, type LockoutPolicy, type LockoutStore, type UserStore, type VerifiedUser } from '@fastify-gatehouse/auth'
import { badLoginRequest, GATEHOUSE_SERVER_INVALID_OPTIONS, GATEHOUSE_SERVER_SESSION_REQUIRED, invalidLogin, lockedOut } from '../errors.js'
import type { AuthMethod, LoginMethodDescription } from './auth-method.js'
import { acceptFormBodies, isBrowserForm } from './form-body.js'
import { resolveLoginOptions, type LoginOptions } from './options.js'

/** Options of {@link PasswordMethod}: the lockout ({@link LoginOptions}) and these. */
export interface PasswordMethodOptions extends LoginOptions {
  users: UserStore
  /** Shown on the login page. Default: `Password`. */
  label?: string
  /** Clock (ms), for tests. Default: `Date.now`. */
  now?: () => number
}

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
    const { users, label, now, ...login } = options ?? {}
    if (typeof users?.verify !== 'function') throw new GATEHOUSE_SERVER_INVALID_OPTIONS('users', 'PasswordMethod needs a UserStore')
    const { maxAttempts, backoff, addressMaxAttempts, resetAfter, store } = resolveLoginOptions(login)
    this.#users = users
    this.#label = label ?? 'Password'
    this.#store = store ?? new MemoryLockoutStore()
    this.#identityPolicy = { maxAttempts, backoff, resetAfter }
    // D-LOCKOUT-01: one office NAT is not locked by a few typos; one address cannot lock many accounts.
    this.#addressPolicy = { maxAttempts: addressMaxAttempts, backoff, resetAfter }
    this.#now = now ?? Date.now
  }

  describe (prefix: string): LoginMethodDescription {
    return { id: this.id, kind: 'form', label: this.#label, action: `${prefix}/login` }
  }

  register (app: FastifyInstance): void {
    acceptFormBodies(app)
    // csrf 'always': a forged sign-in (login CSRF) carries no session cookie yet (D-CSRF-04).
    app.post<{ Body: LoginBody }>('/login', { config: { csrf: 'always' }, schema: { body: LOGIN_BODY } }, async (request, reply) => {
      const session: Session | undefined = request.scope.session
      // D-SERVER-16: a server fault (the plain 500), never a message to the client.
      if (session === undefined) throw new GATEHOUSE_SERVER_SESSION_REQUIRED()
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
        throw badLoginRequest()
      }
      const attempt = await this.#claim(identity, request.ip)
      if (attempt.retryAfter > 0) {
        if (browser) return backToPage('locked', attempt.retryAfter)
        throw lockedOut(attempt.retryAfter)
      }
      const user = await this.#verify(attempt, identity, password)
      if (user === null) {
        if (browser) return backToPage('invalid')
        throw invalidLogin()
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
