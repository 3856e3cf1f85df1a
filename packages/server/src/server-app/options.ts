import { Type } from '@sinclair/typebox'
import { invalidTag, invalidTagMessage, isPlainObject, parseTags, validateOptions } from '@fastify-gatehouse/core'
import { CALLBACK_TIMEOUT_LIMITS, CALLBACK_TIMEOUT_SECONDS, LOCKOUT_LIMITS, type LockoutStore } from '@fastify-gatehouse/auth'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'

// The options of the login methods: `serverApp.login` (PasswordMethod) and
// `serverApp.oidc.<name>` (OidcMethod). Each method's constructor resolves
// its own options, once; AppServer hands them over as given.

/** Lockout of password logins (`serverApp.login`). */
export interface LoginOptions {
  /** Failures of one identity before it is locked (1 to 1 000 000). Default: 5. */
  maxAttempts?: number
  /** Seconds of the first lock, doubled by each later failure (at most 86 400, the longest lock). Default: 30. */
  backoff?: number
  /** Failures from one client address before it is locked (1 to 1 000 000). Default: 4 × maxAttempts, at most 1 000 000. */
  addressMaxAttempts?: number
  /** Seconds without failures after which they are forgotten (at most 31 536 000, a year). Default: 3600. */
  resetAfter?: number
  /** Where counters live. Default: a `MemoryLockoutStore` (one process). */
  store?: LockoutStore
  /**
   * Seconds each call of the user store (`verify`, `setPassword`) and of the
   * lockout store may take; past it the sign-in or password change gets 503
   * `GATEHOUSE_AUTH_CALLBACK_TIMEOUT`. From 0.001 to 300; the auth option
   * of the same name. Default: 5.
   */
  callbackTimeout?: number
}

/** {@link LoginOptions} with the defaults applied; `store` undefined means a new `MemoryLockoutStore`. */
export interface ResolvedLoginOptions {
  readonly maxAttempts: number
  readonly backoff: number
  readonly addressMaxAttempts: number
  readonly resetAfter: number
  readonly store: LockoutStore | undefined
  readonly callbackTimeout: number
}

export const loginDefaults: ResolvedLoginOptions = Object.freeze({
  maxAttempts: 5,
  backoff: 30,
  // 4 × maxAttempts when maxAttempts is set.
  addressMaxAttempts: 20,
  resetAfter: 3600,
  store: undefined,
  callbackTimeout: CALLBACK_TIMEOUT_SECONDS
})

/**
 * Schema of {@link LoginOptions}; the config file's `server_app.login` takes
 * the same numbers. The maxima are what every lockout store can hold
 * (`LOCKOUT_LIMITS`): past them the PostgreSQL and Redis steps overflowed at
 * the first login, so they are boot errors naming the option and its bound.
 * D-LOCKOUT-07.
 */
export const loginOptionsSchema = Type.Object({
  maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: LOCKOUT_LIMITS.maxAttempts })),
  backoff: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: LOCKOUT_LIMITS.backoff })),
  addressMaxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: LOCKOUT_LIMITS.maxAttempts })),
  resetAfter: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: LOCKOUT_LIMITS.resetAfter })),
  store: Type.Optional(Type.Unsafe<LockoutStore>(Type.Object({}))),
  callbackTimeout: Type.Optional(Type.Number({ minimum: CALLBACK_TIMEOUT_LIMITS.min, maximum: CALLBACK_TIMEOUT_LIMITS.max }))
}, { additionalProperties: false })

const LOCKOUT_METHODS = ['lockedFor', 'claim', 'recordFailure', 'refund', 'reset']

/** The lockout options with the defaults applied; errors name the key under `label`. */
export function resolveLoginOptions (options: LoginOptions = {}, label = 'serverApp.login'): ResolvedLoginOptions {
  validateOptions(loginOptionsSchema, options, label)
  const { store } = options
  if (store !== undefined && !LOCKOUT_METHODS.every((m) => typeof (store as unknown as Record<string, unknown>)[m] === 'function')) {
    throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${label}.store`, `must be a LockoutStore (${LOCKOUT_METHODS.join(', ')})`)
  }
  const maxAttempts = options.maxAttempts ?? loginDefaults.maxAttempts
  return Object.freeze({
    maxAttempts,
    backoff: options.backoff ?? loginDefaults.backoff,
    addressMaxAttempts: options.addressMaxAttempts ?? Math.min(maxAttempts * 4, LOCKOUT_LIMITS.maxAttempts),
    resetAfter: options.resetAfter ?? loginDefaults.resetAfter,
    store,
    callbackTimeout: options.callbackTimeout ?? loginDefaults.callbackTimeout
  })
}

/** One OpenID Provider (`serverApp.oidc.<name>`). */
export interface OidcProviderOptions {
  /** The issuer URL (discovery at `<issuer>/.well-known/openid-configuration`); https unless insecure issuers are allowed. */
  issuer: string
  clientId: string
  clientSecret: string
  /** Default: `openid email profile`. */
  scopes?: string
  /** Claim naming the caller. Default: `sub`. With `email`, an `email_verified: false` is refused. */
  identityClaim?: string
  /** Tags every caller from this provider gets. Default: none. */
  tags?: string | readonly string[]
  /** Button text. Default: the provider's name. */
  label?: string
}

/** What an OidcMethod needs besides the provider. */
export interface OidcMethodContext {
  /** The public origin; the redirect URI is `<externalUrl>/_server/auth/oidc:<name>/callback`. */
  externalUrl: string
  /** Allow plain-http issuers (loopback test providers only). Default: false. */
  allowInsecureIssuer?: boolean
  /** Clock (ms), for tests. Default: `Date.now`. */
  now?: () => number
}

/** {@link OidcProviderOptions} with the defaults applied, and the redirect URI. */
export interface ResolvedOidcProvider {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  readonly scopes: string
  readonly identityClaim: string
  readonly tags: readonly string[]
  readonly label: string
  readonly redirectUri: string
}

export const oidcProviderDefaults = Object.freeze({
  scopes: 'openid email profile',
  identityClaim: 'sub',
  tags: Object.freeze([] as string[])
})

const required = Type.String({ minLength: 1 })

/** Schema of {@link OidcProviderOptions}. */
export const oidcProviderSchema = Type.Object({
  issuer: required,
  clientId: required,
  clientSecret: required,
  scopes: Type.Optional(Type.String({ minLength: 1 })),
  identityClaim: Type.Optional(Type.String({ minLength: 1 })),
  tags: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  label: Type.Optional(Type.String({ minLength: 1 }))
}, { additionalProperties: false })

/** A provider's name: it appears in its routes (`oidc:<name>`) and its redirect URI. */
export const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/

/** `externalUrl` without a trailing slash; throws `GATEHOUSE_SERVER_INVALID_OPTIONS` when it is not an absolute http(s) URL. */
export function normaliseExternalUrl (externalUrl: unknown, provider: string): string {
  let url: URL | undefined
  try {
    url = typeof externalUrl === 'string' ? new URL(externalUrl) : undefined
  } catch {}
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '') {
    throw new GATEHOUSE_SERVER_INVALID_OPTIONS('externalUrl', `OIDC provider "${provider}" needs an absolute http(s) URL without query (the redirect URI is built from it)`)
  }
  return url.href.replace(/\/+$/, '')
}

function checkIssuer (issuer: string, label: string, allowInsecure: boolean): void {
  let url: URL | undefined
  try {
    url = new URL(issuer)
  } catch {}
  // openid-client refuses plain http unless told otherwise: said at boot,
  // not as a 502 at the first sign-in.
  if (url === undefined || !(url.protocol === 'https:' || (allowInsecure && url.protocol === 'http:'))) {
    throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${label}.issuer`, `must be an absolute https URL${allowInsecure ? ' (or http)' : ' (plain http needs allowInsecureIssuers)'}, got ${JSON.stringify(issuer)}`)
  }
}

/** A provider's options with the defaults applied; errors name the key under `serverApp.oidc.<name>`. */
export function resolveOidcProvider (name: string, options: OidcProviderOptions, context: OidcMethodContext): ResolvedOidcProvider {
  if (typeof name !== 'string' || !PROVIDER_NAME.test(name)) {
    throw new GATEHOUSE_SERVER_INVALID_OPTIONS('serverApp.oidc', `provider name ${JSON.stringify(name)} must be lower-case letters, digits, - or _ (at most 40, starting with a letter or digit)`)
  }
  const label = `serverApp.oidc.${name}`
  if (!isPlainObject(options)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(label, 'expected an object with issuer, clientId and clientSecret')
  validateOptions(oidcProviderSchema, options, label)
  checkIssuer(options.issuer, label, context?.allowInsecureIssuer === true)
  const tags = parseTags(options.tags)
  // D-AUTH-15: provider tags may hold SUPERADMIN without a flag (given after an interactive sign-in).
  const badTag = invalidTag(tags)
  if (badTag !== undefined) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${label}.tags`, invalidTagMessage(badTag))
  return Object.freeze({
    issuer: options.issuer,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes: options.scopes ?? oidcProviderDefaults.scopes,
    identityClaim: options.identityClaim ?? oidcProviderDefaults.identityClaim,
    tags: Object.freeze(tags),
    label: options.label ?? name,
    redirectUri: `${normaliseExternalUrl(context?.externalUrl, name)}/_server/auth/oidc:${name}/callback`
  })
}
