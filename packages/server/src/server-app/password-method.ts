import type { FastifyInstance } from 'fastify'
import type { Session } from '@fastify-gatehouse/session'
import { safeNextPath } from '@fastify-gatehouse/core'
import type { UserStore } from '@fastify-gatehouse/auth'
import type {} from '@fastify-gatehouse/csrf' // route config `csrf` (csrf's FastifyContextConfig merge)
import { badLoginRequest, GATEHOUSE_SERVER_INVALID_OPTIONS, GATEHOUSE_SERVER_SESSION_REQUIRED, invalidLogin, lockedOut } from '../errors.js'
import type { AuthMethod, LoginMethodContext, LoginMethodDescription, LoginPageFailure } from './auth-method.js'
import { acceptFormBodies, isBrowserForm } from './form-body.js'
import { PAGE_HEADERS } from './html.js'
import { resolveLoginOptions, type LoginOptions, type ResolvedLoginOptions } from './options.js'
import { PasswordCheck } from './password-check.js'

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
  readonly #label: string
  /**
   * The users' passwords under this method's lockout: the account's
   * password change checks the current password through it too, so both
   * count against one lock.
   */
  readonly passwords: PasswordCheck

  /**
   * `resolved`: the lockout already resolved (AppServer's, by
   * resolveServerOptions); the lockout keys of `options` are then ignored.
   */
  constructor (options: PasswordMethodOptions, resolved?: ResolvedLoginOptions) {
    const { users, label, now, ...login } = options ?? {}
    if (typeof users?.verify !== 'function') throw new GATEHOUSE_SERVER_INVALID_OPTIONS('users', 'PasswordMethod needs a UserStore')
    this.passwords = new PasswordCheck(users, resolved ?? resolveLoginOptions(login), now)
    this.#label = label ?? 'Password'
  }

  describe (prefix: string): LoginMethodDescription {
    return { id: this.id, kind: 'form', label: this.#label, action: `${prefix}/login` }
  }

  register (app: FastifyInstance, context: LoginMethodContext): void {
    acceptFormBodies(app)
    // csrf 'always': a forged sign-in (login CSRF) carries no session cookie yet (D-CSRF-04).
    app.post<{ Body: LoginBody }>('/login', { config: { csrf: 'always' }, schema: { body: LOGIN_BODY } }, async (request, reply) => {
      const session: Session | undefined = request.scope.session
      // D-SERVER-16: a server fault (the plain 500), never a message to the client.
      if (session === undefined) throw new GATEHOUSE_SERVER_SESSION_REQUIRED()
      const { identity, password, next, return_session_id: returnSessionId } = (request.body ?? {}) as LoginBody
      // Without JavaScript a failure answers the login page itself, with a
      // message chosen by a fixed code (D-SERVER-01) and the identity typed
      // kept in its field; never the password, and never in a URL
      // (D-SERVER-54: a password typed into the identity field would be in
      // the history and the access logs).
      const browser = isBrowserForm(request.headers)
      const backToPage = (status: number, error: LoginPageFailure['error'], retry?: number) => {
        const typed = typeof identity === 'string' && identity.length <= 200 ? identity : ''
        const page = context.loginPage(request, { error, identity: typed, next: safeNextPath(next), ...(retry === undefined ? {} : { retry }) })
        if (retry !== undefined) reply.header('retry-after', String(retry))
        return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page)
      }
      if (typeof identity !== 'string' || identity === '' || identity.length > 200 ||
        typeof password !== 'string' || password === '' || password.length > 1024) {
        if (browser) return backToPage(400, 'missing')
        throw badLoginRequest()
      }
      const checked = await this.passwords.check(identity, password, request.ip)
      if (checked.outcome === 'locked') {
        if (browser) return backToPage(429, 'locked', checked.retryAfter)
        throw lockedOut(checked.retryAfter)
      }
      if (checked.outcome === 'invalid') {
        if (browser) return backToPage(401, 'invalid')
        throw invalidLogin()
      }
      const { user } = checked
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
}
