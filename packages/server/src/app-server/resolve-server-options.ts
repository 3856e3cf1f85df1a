import type { TSchema } from '@sinclair/typebox'
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify'
import { isPlainObject, resolveSection, resolveServerLimits, serverLimitDefaults, validateOptions, type ComponentList, type Recipe, type ResolvedServerLimits } from '@fastify-gatehouse/core'
import { passwordPolicyDefaults, resolvePasswordPolicy, type ApiKeyStore, type ConfiguredUser, type ResolvedPasswordPolicy, type UserStore } from '@fastify-gatehouse/auth'
import type { SessionOptions } from '@fastify-gatehouse/session'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'
import { accountDefaults, resolveAccountOptions, type ResolvedAccountOptions } from '../server-app/account/options.js'
import { OidcMethod } from '../server-app/oidc-method.js'
import { loginDefaults, resolveLoginOptions, type ResolvedLoginOptions } from '../server-app/options.js'
import { checkAdminPassword } from './admin-password.js'
import { resolveDatabaseOption, type ServerDatabaseOptions } from './database-stores.js'
import { appServerOptionsSchema } from './options-schema.js'
import type { AppServerOptions, ServerAuthConfig } from './options.js'
import type { RoutedApplication } from './routed-application.js'

/** API keys as `tokens` seeds them: `{ <label>: { key, tags } }`. */
export type SeededTokens = Readonly<Record<string, { key: string, tags?: string | readonly string[] }>>

/** Where a server's users or keys come from: a store given, entries to seed a memory store with, or none. */
export type StoreSource<Store, Seed> = { readonly store: Store } | { readonly seed: Seed } | undefined

// Marks an object resolveServerOptions made, so AppServer takes it as it is.
const kResolved = Symbol('gatehouse.resolvedServerOptions')

/** {@link AppServerOptions} checked once, with the defaults applied and the OIDC methods made; frozen. */
export interface ResolvedServerOptions {
  readonly [kResolved]: true
  readonly primary: RoutedApplication | undefined
  readonly apps: Readonly<Record<string, RoutedApplication>>
  readonly login: boolean
  readonly debug: boolean
  readonly externalUrl: string | undefined
  readonly serverApp: {
    /** The lockout of password logins, resolved whether or not there are users (a bad value is refused either way). */
    readonly login: ResolvedLoginOptions
    readonly oidcMethods: readonly OidcMethod[]
    readonly allowInsecureIssuers: boolean
    readonly account: ResolvedAccountOptions | false
    /** Whether `account` was given: given, the endpoints are on without a login method (D-SERVER-22). */
    readonly accountGiven: boolean
  }
  readonly middleware: NonNullable<Recipe['middleware']>
  /** As given; undefined means `allComponents`. */
  readonly components: ComponentList | undefined
  readonly session: SessionOptions | undefined
  readonly logger: boolean | FastifyBaseLogger
  readonly trustProxy: NonNullable<FastifyServerOptions['trustProxy']>
  readonly server: ResolvedServerLimits
  /** Handed to the auth component as given: the chain checks it (D-CHAIN-12). */
  readonly auth: ServerAuthConfig | undefined
  readonly users: StoreSource<UserStore, Readonly<Record<string, ConfiguredUser>>>
  readonly tokens: StoreSource<ApiKeyStore, SeededTokens>
  readonly adminPassword: string | undefined
  readonly passwordPolicy: ResolvedPasswordPolicy
  /** Its shape checked; the PostgreSQL package checks its values when the stores open. */
  readonly database: { readonly options: ServerDatabaseOptions, readonly urlName: 'database' | 'database.url' } | undefined
}

/** What `resolveServerOptions({})` returns: every default. */
export const appServerDefaults: ResolvedServerOptions = Object.freeze({
  [kResolved]: true as const,
  primary: undefined,
  apps: Object.freeze({}),
  login: false,
  debug: false,
  externalUrl: undefined,
  serverApp: Object.freeze({ login: loginDefaults, oidcMethods: Object.freeze([]), allowInsecureIssuers: false, account: accountDefaults, accountGiven: false }),
  middleware: Object.freeze({}),
  components: undefined,
  session: undefined,
  logger: true,
  trustProxy: false,
  server: serverLimitDefaults,
  auth: undefined,
  users: undefined,
  tokens: undefined,
  adminPassword: undefined,
  passwordPolicy: passwordPolicyDefaults,
  database: undefined
})

/**
 * How the input's keys are named in errors when they come from elsewhere
 * than code (a config file, the environment): `gatehouse serve` names
 * `$GATEHOUSE_ADMIN_PASSWORD`, and the rest as written in the file.
 */
export interface ResolveNames {
  adminPassword?: string
  passwordPolicy?: string
  login?: string
  account?: string
}

/** Whether `value` is what {@link resolveServerOptions} returns. */
export function isResolvedServerOptions (value: unknown): value is ResolvedServerOptions {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kResolved] === true
}

const isStore = (value: unknown, method: string): boolean =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[method] === 'function'

const SEEDED_KEYS: ReadonlySet<string> = new Set(['password', 'passwordHash', 'tags'])

function application (value: unknown, path: string): RoutedApplication {
  if (typeof (value as { register?: unknown }).register !== 'function') {
    throw new GATEHOUSE_SERVER_INVALID_OPTIONS(path, 'expected a RoutedApplication (an object with register(app))')
  }
  return value as RoutedApplication
}

/** Every top-level key must be one the schema names, and match it. */
function checkKeys (options: Record<string, unknown>): void {
  const properties = appServerOptionsSchema.properties as Record<string, TSchema>
  for (const [key, value] of Object.entries(options)) {
    if (!Object.hasOwn(properties, key)) {
      throw new GATEHOUSE_SERVER_INVALID_OPTIONS(key, `unknown option (known: ${Object.keys(properties).join(', ')})`)
    }
    if (value !== undefined) validateOptions(properties[key]!, value, key)
  }
}

function resolveApps (input: AppServerOptions): Readonly<Record<string, RoutedApplication>> {
  const apps = { ...input.apps }
  for (const [prefix, app] of Object.entries(apps)) {
    if (!prefix.startsWith('/') || prefix === '/') {
      throw new GATEHOUSE_SERVER_INVALID_OPTIONS('apps', `a mount prefix must start with "/" and not be "/", got ${JSON.stringify(prefix)}`)
    }
    application(app, `apps[${JSON.stringify(prefix)}]`)
  }
  return Object.freeze(apps)
}

function resolveUsers (users: AppServerOptions['users'], database: boolean): ResolvedServerOptions['users'] {
  if (users === undefined) return undefined
  if (isStore(users, 'verify')) {
    // Sessions are re-checked against standing() on every request (D-SESSION-11).
    if (!isStore(users, 'standing')) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('users', 'a UserStore must implement standing(identity) (sessions follow their user)')
    return Object.freeze({ store: users as UserStore })
  }
  if (database) throw seededBesideDatabase('users')
  for (const [identity, user] of Object.entries(users)) {
    // A typo (`tag`) must not seed a user without the tags it meant.
    const unknown = typeof user === 'object' && user !== null ? Object.keys(user).find((key) => !SEEDED_KEYS.has(key)) : undefined
    if (unknown !== undefined) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`users.${identity}.${unknown}`, 'unknown key (known: password, passwordHash, tags)')
  }
  return Object.freeze({ seed: Object.freeze({ ...users as Record<string, ConfiguredUser> }) })
}

function resolveTokens (tokens: AppServerOptions['tokens'], database: boolean): ResolvedServerOptions['tokens'] {
  if (tokens === undefined) return undefined
  if (isStore(tokens, 'verify')) return Object.freeze({ store: tokens as ApiKeyStore })
  if (database) throw seededBesideDatabase('tokens')
  return Object.freeze({ seed: Object.freeze({ ...tokens as SeededTokens }) })
}

function seededBesideDatabase (role: 'users' | 'tokens'): Error {
  return new GATEHOUSE_SERVER_INVALID_OPTIONS(role, `seeded ${role} would live in memory beside database; give a store, or add them with \`gatehouse ${role === 'users' ? 'users add' : 'keys issue'} --database\` or the admin API`)
}

/**
 * Checks every section of a server's options once, applies the defaults
 * and makes the OIDC methods: what {@link AppServer} builds from, and what
 * `gatehouse serve` maps a config file to. Pure: nothing is opened, hashed
 * or registered. Throws `GATEHOUSE_SERVER_INVALID_OPTIONS` (or the owning
 * package's code) naming the option. The password policy and the admin
 * password come first, so a bad one stops a boot before anything opens
 * (D-SERVER-21). Each section says it was resolved on the
 * `gatehouse:resolve` diagnostics channel. D-SERVER-58.
 */
export function resolveServerOptions (input: AppServerOptions = {}, names: ResolveNames = {}): ResolvedServerOptions {
  if (!isPlainObject(input as unknown)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('options', 'expected an object')
  checkKeys(input as Record<string, unknown>)
  const passwordPolicy = resolveSection('passwordPolicy', () => resolvePasswordPolicy(input.passwordPolicy, names.passwordPolicy ?? 'passwordPolicy'))
  const adminPassword = input.adminPassword === undefined
    ? undefined
    : resolveSection('adminPassword', () => checkAdminPassword(input.adminPassword, names.adminPassword ?? 'adminPassword', passwordPolicy))
  // Says `limits` on the channel itself, unless they come resolved (a config file's: D-CONFIG-17).
  const server = resolveServerLimits(input.server)
  const primary = input.primary === undefined ? undefined : application(input.primary, 'primary')
  const apps = resolveApps(input)
  const middleware: NonNullable<Recipe['middleware']> = input.middleware ?? Object.freeze({})
  if (input.session !== undefined && middleware.session !== undefined) {
    throw new GATEHOUSE_SERVER_INVALID_OPTIONS('session', 'the session options are given as middleware.session too; give them in one place')
  }
  const serverApp = input.serverApp ?? {}
  const allowInsecureIssuers = serverApp.allowInsecureIssuers ?? false
  // Each provider is checked by its OidcMethod, made here, once.
  const oidcMethods = resolveSection('oidc', () => Object.freeze(Object.entries(serverApp.oidc ?? {}).map(([name, provider]) =>
    new OidcMethod(name, provider, { externalUrl: input.externalUrl as string, allowInsecureIssuer: allowInsecureIssuers }))))
  const login = resolveSection('login', () => resolveLoginOptions(serverApp.login, names.login ?? 'serverApp.login'))
  const account = resolveSection('account', () => resolveAccountOptions(serverApp.account, names.account ?? 'serverApp.account'))
  const database = input.database === undefined
    ? undefined
    : resolveSection('database', () => Object.freeze({ options: resolveDatabaseOption(input.database), urlName: typeof input.database === 'string' ? 'database' as const : 'database.url' as const }))
  const users = resolveSection('users', () => resolveUsers(input.users, database !== undefined))
  const tokens = resolveSection('tokens', () => resolveTokens(input.tokens, database !== undefined))
  return Object.freeze({
    [kResolved]: true as const,
    primary,
    apps,
    login: input.login ?? false,
    debug: input.debug ?? false,
    externalUrl: input.externalUrl,
    serverApp: Object.freeze({ login, oidcMethods, allowInsecureIssuers, account, accountGiven: serverApp.account !== undefined }),
    middleware,
    components: input.components,
    session: input.session,
    logger: input.logger ?? true,
    trustProxy: input.trustProxy ?? false,
    server,
    auth: input.auth,
    users,
    tokens,
    adminPassword,
    passwordPolicy,
    database
  })
}
