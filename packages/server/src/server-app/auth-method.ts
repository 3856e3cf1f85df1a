import type { FastifyInstance } from 'fastify'
import type { MaybePromise } from '@fastify-gatehouse/core'

/** How a login method appears in `/_server/login_methods` and on the login page. */
export type LoginMethodDescription =
  | { readonly id: string, readonly kind: 'form', readonly label: string, readonly action: string }
  | { readonly id: string, readonly kind: 'redirect', readonly label: string, readonly url: string }

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
  register: (app: FastifyInstance) => MaybePromise<void>
}
