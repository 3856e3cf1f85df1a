import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify'
import { isPlainObject, resolveServerLimits, serverLimitDefaults, validateOptions, type ComponentList, type Recipe, type ResolvedServerLimits, type ServerLimits } from '@fastify-gatehouse/core'
import type { ApiKeyStore, ConfiguredUser, PasswordPolicy, UserStore } from '@fastify-gatehouse/auth'
import type { SessionOptions } from '@fastify-gatehouse/session'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'
import { OidcMethod } from '../server-app/oidc-method.js'
import { loginOptionsSchema, type LoginOptions, type OidcProviderOptions } from '../server-app/options.js'
import { resolveAccountOptions, type AccountOptions } from '../server-app/account/options.js'
import type { ServerAuthConfig } from './auth-mixin.js'
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

/** What every Gatehouse server takes. */
export interface ServerBaseOptions {
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
}

/** What the auth capability takes (see AuthMixin). */
export interface AuthMixinOptions {
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

/** Everything an AppServer takes (DESIGN §9). */
export interface AppServerOptions extends ServerBaseOptions, AuthMixinOptions {}

/** {@link ServerBaseOptions} checked, with the defaults applied and the OIDC methods made. */
export interface ResolvedServerBaseOptions {
  readonly primary: RoutedApplication | undefined
  readonly apps: Readonly<Record<string, RoutedApplication>>
  readonly login: boolean
  readonly debug: boolean
  readonly externalUrl: string | undefined
  readonly serverApp: {
    /** As given: PasswordMethod resolves them (see ServerBase). */
    readonly login: LoginOptions | undefined
    readonly oidcMethods: readonly OidcMethod[]
    readonly allowInsecureIssuers: boolean
    /** Checked, as given (the `_server` app applies the defaults and decides whether they are on). */
    readonly account: AccountOptions | false | undefined
  }
  readonly middleware: NonNullable<Recipe['middleware']>
  /** As given; undefined means `allComponents` (the server package's full list). */
  readonly components: ComponentList | undefined
  readonly session: SessionOptions | undefined
  readonly logger: boolean | FastifyBaseLogger
  readonly trustProxy: NonNullable<FastifyServerOptions['trustProxy']>
  readonly server: ResolvedServerLimits
}

export const defaults: ResolvedServerBaseOptions = Object.freeze({
  primary: undefined,
  apps: Object.freeze({}),
  login: false,
  debug: false,
  externalUrl: undefined,
  serverApp: Object.freeze({ login: undefined, oidcMethods: Object.freeze([]), allowInsecureIssuers: false, account: undefined }),
  middleware: Object.freeze({}),
  components: undefined,
  session: undefined,
  logger: true,
  trustProxy: false,
  server: serverLimitDefaults
})

// Instances, stores, loggers and nested sections: the schema says they are
// objects; their owners check the rest (the chain and its components,
// resolveServerLimits, the login methods, the stores).
const object = Type.Object({})
// The lockout keys only: PasswordMethod checks their values when it is made.
const loginKeys = Type.Object(Object.fromEntries(Object.keys(loginOptionsSchema.properties).map((key) => [key, Type.Optional(Type.Unknown())])),
  { additionalProperties: false })

/** Schema of {@link ServerBaseOptions}: every key a server takes, unknown ones refused. */
export const serverBaseOptionsSchema = Type.Object({
  primary: Type.Optional(object),
  apps: Type.Optional(Type.Record(Type.String(), object)),
  login: Type.Optional(Type.Boolean()),
  debug: Type.Optional(Type.Boolean()),
  externalUrl: Type.Optional(Type.String()),
  serverApp: Type.Optional(Type.Object({
    login: Type.Optional(loginKeys),
    oidc: Type.Optional(Type.Record(Type.String(), object)),
    allowInsecureIssuers: Type.Optional(Type.Boolean()),
    account: Type.Optional(Type.Union([Type.Literal(false), object]))
  }, { additionalProperties: false })),
  middleware: Type.Optional(object),
  // The chain checks each entry (a component, no two with one name).
  components: Type.Optional(Type.Array(Type.Unknown())),
  session: Type.Optional(object),
  // A pino logger, or Fastify's logger options.
  logger: Type.Optional(Type.Union([Type.Boolean(), object])),
  trustProxy: Type.Optional(Type.Union([
    Type.Boolean(), Type.String(), Type.Integer({ minimum: 0 }), Type.Array(Type.String()),
    Type.Function([Type.String(), Type.Integer()], Type.Boolean())
  ])),
  server: Type.Optional(object)
}, { additionalProperties: false })

/** Schema of {@link AuthMixinOptions}; `auth` is checked by the auth component, the seeded users and keys by their stores. */
export const authMixinOptionsSchema = Type.Object({
  auth: Type.Optional(object),
  users: Type.Optional(object),
  tokens: Type.Optional(object),
  adminPassword: Type.Optional(Type.String()),
  // resolvePasswordPolicy checks the keys and bounds, naming passwordPolicy.<key>.
  passwordPolicy: Type.Optional(object),
  // A URL or the options; checkDatabaseOption checks the rest, naming database.<key>.
  database: Type.Optional(Type.Union([Type.String(), object]))
}, { additionalProperties: false })

/** Schema of {@link AppServerOptions}. */
export const appServerOptionsSchema = withOptions(serverBaseOptionsSchema, authMixinOptionsSchema)

/** `base` with the keys of `more` added: what a mixin does to its server's schema. */
export function withOptions (base: TObject, more: TObject): TObject {
  return Type.Object({ ...base.properties, ...more.properties }, { additionalProperties: false })
}

function application (value: unknown, path: string): RoutedApplication {
  if (typeof (value as { register?: unknown }).register !== 'function') {
    throw new GATEHOUSE_SERVER_INVALID_OPTIONS(path, 'expected a RoutedApplication (an object with register(app))')
  }
  return value as RoutedApplication
}

/** Every top-level key must be one `schema` names, and match it. */
function checkKeys (options: Record<string, unknown>, schema: TObject): void {
  const properties = schema.properties as Record<string, TSchema>
  for (const [key, value] of Object.entries(options)) {
    if (!Object.hasOwn(properties, key)) {
      throw new GATEHOUSE_SERVER_INVALID_OPTIONS(key, `unknown option (known: ${Object.keys(properties).join(', ')})`)
    }
    if (value !== undefined) validateOptions(properties[key]!, value, key)
  }
}

function checkedAccount (account: AccountOptions | false | undefined): AccountOptions | false | undefined {
  if (account !== undefined) resolveAccountOptions(account, 'serverApp.account')
  return account
}

/**
 * Checks a server's options once, when it is made, and applies the
 * defaults. `schema` names every key the server class takes (a mixin adds
 * its own, and resolves them itself). Throws `GATEHOUSE_SERVER_INVALID_OPTIONS`
 * (or core's, for a schema failure) naming the option.
 */
export function resolveServerBaseOptions (options: ServerBaseOptions, schema: TObject = serverBaseOptionsSchema): ResolvedServerBaseOptions {
  if (!isPlainObject(options as unknown)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('options', 'expected an object')
  checkKeys(options as Record<string, unknown>, schema)
  const server = resolveServerLimits(options.server)
  const primary = options.primary === undefined ? undefined : application(options.primary, 'primary')
  const apps = { ...options.apps }
  for (const [prefix, app] of Object.entries(apps)) {
    if (!prefix.startsWith('/') || prefix === '/') {
      throw new GATEHOUSE_SERVER_INVALID_OPTIONS('apps', `a mount prefix must start with "/" and not be "/", got ${JSON.stringify(prefix)}`)
    }
    application(app, `apps[${JSON.stringify(prefix)}]`)
  }
  const middleware = options.middleware ?? defaults.middleware
  if (options.session !== undefined && middleware.session !== undefined) {
    throw new GATEHOUSE_SERVER_INVALID_OPTIONS('session', 'the session options are given as middleware.session too; give them in one place')
  }
  const serverApp = options.serverApp ?? {}
  const allowInsecureIssuers = serverApp.allowInsecureIssuers ?? defaults.serverApp.allowInsecureIssuers
  // Each provider is checked by its OidcMethod, made here, once.
  const oidcMethods = Object.entries(serverApp.oidc ?? {}).map(([name, provider]) =>
    new OidcMethod(name, provider, { externalUrl: options.externalUrl as string, allowInsecureIssuer: allowInsecureIssuers }))
  return Object.freeze({
    primary,
    apps: Object.freeze(apps),
    login: options.login ?? defaults.login,
    debug: options.debug ?? defaults.debug,
    externalUrl: options.externalUrl,
    serverApp: Object.freeze({ login: serverApp.login, oidcMethods: Object.freeze(oidcMethods), allowInsecureIssuers, account: checkedAccount(serverApp.account) }),
    middleware,
    components: options.components,
    session: options.session,
    logger: options.logger ?? defaults.logger,
    trustProxy: options.trustProxy ?? defaults.trustProxy,
    server
  })
}
