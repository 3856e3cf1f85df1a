import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import { isFresh, safeNextPath, type Avatar } from '@fastify-gatehouse/core'
import type { Session } from '@fastify-gatehouse/session'
import { accountNotUser, GATEHOUSE_SERVER_SESSION_REQUIRED, notSignedIn } from '../../errors.js'
import { isBrowserForm } from '../form-body.js'

/**
 * Who an account endpoint serves: any signed-in caller (`/account/me`),
 * a caller signed in with a session (their sessions: a password or an
 * OIDC sign-in), or a caller signed in with a password of this server's
 * user store (the password change).
 * D-SERVER-23.
 */
export type AccountCaller = 'signed-in' | 'session' | 'password'

/** The caller and their session, once {@link callerGate} let them through. */
export interface SessionCaller { readonly auth: Avatar, readonly session: Session, readonly identity: string }

const NOT_SESSION = 'Only a user signed in with a session can do this; API keys, tokens and Basic credentials may only read /account/me'
const NOT_PASSWORD = 'Only a user who signs in here with a password can change it'

/** Whether the request's caller is the identity signed in on its session (not an Authorization header). */
export function isSessionCaller (request: FastifyRequest): boolean {
  const auth = request.scope.auth
  return auth !== null && auth.backend === 'session' && request.scope.session?.identity === auth.identity
}

/**
 * An instance-level onRequest hook for the account endpoints of one kind
 * of caller. It runs before every route-level hook (the route's `authRule`
 * and `fresh`), so a caller of the wrong kind is told so (403
 * `GATEHOUSE_SERVER_ACCOUNT_NOT_USER`) rather than asked to sign in again;
 * an anonymous one gets 401 `GATEHOUSE_SERVER_NOT_SIGNED_IN` (a browser
 * form: 303 to the login page). Every answer is `Cache-Control: no-store`.
 * D-SERVER-24.
 */
export function callerGate (kind: AccountCaller, prefix: string): onRequestHookHandler {
  // Where a form without JavaScript goes to sign in (again): the login page, back to the account page.
  const signIn = (reauth: boolean) => `${prefix}/login_page?next=${encodeURIComponent(safeNextPath(`${prefix}/account`))}${reauth ? '&reauth=1' : ''}`
  return async function accountCaller (request: FastifyRequest, reply: FastifyReply) {
    reply.header('cache-control', 'no-store')
    const auth = request.scope.auth
    const form = isBrowserForm(request.headers)
    if (auth === null) {
      if (form) return reply.code(303).header('location', signIn(false)).send()
      throw notSignedIn()
    }
    if (kind === 'signed-in') return
    if (!isSessionCaller(request)) throw accountNotUser(NOT_SESSION)
    if (kind === 'password' && request.scope.session?.via !== 'password') throw accountNotUser(NOT_PASSWORD)
    // Core enforces the route's `fresh` next (401 to anyone else); a form
    // post is no navigation the errors component would redirect, so its
    // stale caller is sent to sign in again here.
    const fresh = (request.routeOptions.config as { fresh?: unknown }).fresh
    if (form && typeof fresh === 'number' && !isFresh(auth, fresh, Date.now())) return reply.code(303).header('location', signIn(true)).send()
  }
}

/** The session caller of a request the gate let through (a server fault otherwise). */
export function sessionCaller (request: FastifyRequest): SessionCaller {
  const { auth, session } = request.scope
  // D-SERVER-16: a server fault (the plain 500), never a message to the client.
  if (session === undefined) throw new GATEHOUSE_SERVER_SESSION_REQUIRED()
  if (auth === null || session.identity === null) throw notSignedIn()
  return { auth, session, identity: session.identity }
}
