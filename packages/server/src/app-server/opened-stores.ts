import { extendOptions } from '@fastify-gatehouse/core'
import type { ApiKeyStore, LockoutStore, UserStore } from '@fastify-gatehouse/auth'
import type { SessionStore } from '@fastify-gatehouse/session'
import type { ResolvedServerOptions } from './resolve-server-options.js'

/** Stores a caller opened after resolving a server's options (`gatehouse serve`: the file's folder, Redis, PostgreSQL). */
export interface OpenedStores {
  users?: UserStore
  tokens?: ApiKeyStore
  /** The session store; the middleware.session setting gets it as `store`. */
  sessionStore?: SessionStore
  /** The lockout store, as `serverApp.login.store`. */
  lockoutStore?: LockoutStore
}

/**
 * `resolved` with stores opened since: `gatehouse serve` resolves the
 * file's options before it opens anything (a bad admin password stops it
 * with nothing to close), then hands the server what it opened. The stores
 * are the caller's own instances of each role: no section is resolved
 * again. D-SERVER-61.
 */
export function withOpenedStores (resolved: ResolvedServerOptions, { users, tokens, sessionStore, lockoutStore }: OpenedStores): ResolvedServerOptions {
  const { middleware, serverApp } = resolved
  return Object.freeze({
    ...resolved,
    ...(users === undefined ? {} : { users: Object.freeze({ store: users }) }),
    ...(tokens === undefined ? {} : { tokens: Object.freeze({ store: tokens }) }),
    ...(sessionStore === undefined
      ? {}
      : { middleware: Object.freeze({ ...middleware, session: extendOptions((middleware.session ?? {}) as Record<string, unknown>, { store: sessionStore }, 'middleware.session') }) }),
    ...(lockoutStore === undefined ? {} : { serverApp: Object.freeze({ ...serverApp, login: Object.freeze({ ...serverApp.login, store: lockoutStore }) }) })
  })
}
