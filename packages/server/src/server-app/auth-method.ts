import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { MaybePromise } from '@fastify-gatehouse/core'

/** How a login method appears in `/_server/login_methods` and on the login page. */
export type LoginMethodDescription =
  | { readonly id: string, readonly kind: 'form', readonly label: string, readonly action: string }
  | { readonly id: string, readonly kind: 'redirect', readonly label: string, readonly url: string }

/** Why a browser's sign-in without JavaScript came back to the login page, and what it typed (never the password). */
export interface LoginPageFailure {
  readonly error: 'invalid' | 'locked' | 'missing'
  /** Seconds until a locked sign-in may try again. */
  readonly retry?: number
  /** The identity the browser sent, shown again in its field (escaped). */
  readonly identity: string
  /** Where to go after signing in (already through safeNextPath). */
  readonly next: string
}

/** What the `_server` app gives each login method as it registers it. */
export interface LoginMethodContext {
  /** The login page (HTML) for a browser whose form sign-in failed: its message, the identity it typed kept. */
  readonly loginPage: (request: FastifyRequest, failure: LoginPageFailure) => string
  /**
   * Every login method of this `_server` app, in order: methods of one kind
   * may share routes (the OIDC providers share one start and one callback
   * route). Default: this method alone.
   */
  readonly methods?: readonly AuthMethod[]
}

/**
 * A way to sign in (password, an OIDC provider). The `_server` app lists
 * each one and lets it add its routes under its own prefix (`/_server`).
 */
export interface AuthMethod {
  /** `password`, `oidc:<name>`. */
  readonly id: string
  /** What `login_methods` shows; `prefix` is where the `_server` app is mounted. Never secrets. */
  describe: (prefix: string) => LoginMethodDescription
  /** Adds the method's routes to the `_server` app. */
  register: (app: FastifyInstance, context: LoginMethodContext) => MaybePromise<void>
}
