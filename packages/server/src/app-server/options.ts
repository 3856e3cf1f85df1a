import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify'
import type { ComponentList, Recipe, ServerLimits } from '@fastify-gatehouse/core'
import type { ApiKeyStore, AuthOptions, ConfiguredUser, PasswordPolicy, UserStore } from '@fastify-gatehouse/auth'
import type { SessionOptions } from '@fastify-gatehouse/session'
import type { LoginOptions, OidcProviderOptions } from '../server-app/options.js'
import type { AccountOptions } from '../server-app/account/options.js'
import type { ServerDatabaseOptions } from './database-stores.js'
import type { RoutedApplication } from './routed-application.js'

/** The `serverApp` option: the login methods of the `_server` app. */
export interface ServerAppSettings {
  /** Lockout of password logins (with `users`). Default: see {@link LoginOptions}. */
  login?: LoginOptions
  /** OpenID Providers by name (needs `externalUrl`). Default: none. */
  oidc?: Readonly<Record<string, OidcProviderOptions>>
  /** Let an issuer be plain http (a loopback test provider only). Default: false. */
  allowInsecureIssuers?: boolean
  /**
   * The account endpoints (`/_server/account/…`): `{ freshFor }` (seconds
   * a sign-in stays recent enough to change the password or end sessions;
   * default 600), or `false` to turn them off. Default: on whenever there
   * is a login method (users or an OIDC provider).
   */
  account?: AccountOptions | false
}

/**
 * The auth options of AppServer: the auth component's, in the same shape
 * (JWT verifiers a list, each with a name), without `apiKeys` (see `tokens`).
 */
export type ServerAuthConfig = Omit<AuthOptions, 'apiKeys'>

/** Everything an AppServer takes (DESIGN §9): the input of {@link resolveServerOptions}. */
export interface AppServerOptions {
  /** The application mounted at `/`. Default: none. */
  primary?: RoutedApplication
  /** More applications, by mount prefix (`{ '/shop': new Shop() }`). Default: none. */
  apps?: Readonly<Record<string, RoutedApplication>>
  /** The login surface: 401s and anonymous 403s of browser navigations go to the login page. Default: false. */
  login?: boolean
  /** Add stacks to 5xx bodies. Default: false. */
  debug?: boolean
  /** The public origin (absolute http/https URL), for redirect URIs. Default: none (required with `serverApp.oidc`). */
  externalUrl?: string
  /** Options of the `_server` app's login methods. */
  serverApp?: ServerAppSettings
  /** Component settings, as in a recipe (`{ cors: true, compression: { minimumSize: 1000 } }`). Default: `{}`. */
  middleware?: Recipe['middleware']
  /**
   * The components `middleware` may name. Default: `allComponents` (every
   * Gatehouse component); add your own with `[...allComponents, timing]`.
   * `errors` and `session` must be in it: the server always turns them on.
   */
  components?: ComponentList
  /** Options of the session component (always on: the `_server` app needs it); or give them as `middleware.session`. Default: its defaults. */
  session?: SessionOptions
  /**
   * Fastify's logger: `true` (pino at `info`, to stdout), `false` (silent),
   * or a pino logger. Default: `true`. Request lines go through the
   * redacting log controller, so nothing secret is written at `info`.
   * D-SERVER-17.
   */
  logger?: boolean | FastifyBaseLogger
  /** Trust X-Forwarded-* from these proxies (Fastify's trustProxy). Default: false. */
  trustProxy?: FastifyServerOptions['trustProxy']
  /**
   * Server limits: request, headers, keep-alive and inactivity timeouts (ms),
   * body limit (bytes), connections. Defaults: see `serverLimitDefaults`
   * (60 s, 20 s, 72 s, 120 s, 1 MiB, 10 000). A bad key or value rejects
   * `ready()`, naming it (`server.requestTimeout: …`).
   */
  server?: ServerLimits
  /** Arms the auth component. Default: off, unless `tokens` are given. */
  auth?: ServerAuthConfig
  /**
   * A `UserStore`, or `{ <identity>: { password | passwordHash, tags } }`
   * for an in-memory one. The same entry gives the same password hash (and
   * credential stamp) on every instance, so sessions cross instances that
   * share a session store; prefer `passwordHash` (`gatehouse users hash`)
   * to a password in clear. Default: none.
   */
  users?: UserStore | Readonly<Record<string, ConfiguredUser>>
  /** An `ApiKeyStore`, or `{ <label>: { key: 'gak_…', tags } }` for an in-memory one (keys hashed on the way in). Default: none. */
  tokens?: ApiKeyStore | Readonly<Record<string, { key: string, tags?: string | readonly string[] }>>
  /**
   * Creates or updates the identity `admin` with tag SUPERADMIN at boot. It
   * must pass `passwordPolicy` (as the identity `admin`): else `ready()`
   * rejects naming the option and the rule. Default: none.
   */
  adminPassword?: string
  /**
   * What a new password must be, wherever one is set through the server:
   * `adminPassword`, the admin API (`POST /_server/users`, `PATCH
   * /_server/users/:identity`) and the account's change of password.
   * `{ minLength, maxLength }` in Unicode characters, defaults 8 and 256
   * (`minLength` 8–64, 15 recommended; `maxLength` 64–512); a password is
   * also refused when it holds a control character, contains the identity,
   * or is a common password. Sign-in never applies it: a weaker password
   * set before keeps working until changed. Users seeded through `users`
   * and calls to a `UserStore` are not checked (call `passwordProblem`).
   * Default: `passwordPolicyDefaults`.
   */
  passwordPolicy?: PasswordPolicy
  /**
   * PostgreSQL for users, API keys, sessions and lockout counters: a
   * `postgres://` URL, or `{ url | pool, schema?, tablePrefix?, migrate?,
   * connectTimeout?, statementTimeout?, poolSize? }`. Each role whose store
   * you give yourself (`users`, `tokens`, `middleware.session.store`,
   * `serverApp.login.store`) keeps it; seeded `users`/`tokens` objects are
   * refused with it. A schema that is behind rejects `ready()`
   * (`GATEHOUSE_POSTGRES_SCHEMA_BEHIND`) unless `migrate: true`. The stores
   * close with `close()`. Default: none.
   */
  database?: string | ServerDatabaseOptions
}
