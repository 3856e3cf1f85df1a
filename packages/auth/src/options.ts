import { Type } from '@sinclair/typebox'
import { isPlainObject, isToken, NO_CONTROL_CHARACTERS_PATTERN, TOKEN_PATTERN } from '@fastify-gatehouse/core'
import type { ApiKeyStore } from './api-key.js'
import type { CacheOptions } from './basic.js'
import type { BasicOption } from './basic-source.js'
import type { BearerOption } from './bearer-function.js'
import type { BearerCase } from './bearer-scheme.js'
import type { BasicLockoutOptions } from './password-guard.js'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'
import { LOCKOUT_LIMITS } from './lockout/lockout-policy.js'
import type { LockoutStore } from './lockout/lockout-store.js'
import { JWT_ALGORITHMS, JWT_NAME_PATTERN, type JwtVerifierOptions } from './jwt.js'
import { PASSWORD_HASH_HINT, PASSWORD_HASH_PATTERN } from './password.js'
import { CALLBACK_TIMEOUT_LIMITS, CALLBACK_TIMEOUT_SECONDS } from './outside-call.js'

/**
 * Options of the auth component and of `AuthCore`; every key is optional.
 * The same shape in a config file (snake_case), a recipe's
 * `authMiddleware`, `AppServer({ auth })` and `AuthCore.create`.
 */
export interface AuthOptions {
  /**
   * Basic users: user name → `{ password | passwordHash, tags }`; or
   * `{ users: <UserStore> }`; or `{ validate (identity, password, request) }`
   * answering an Avatar, tags or null. One form at a time. Default: none.
   */
  basic?: BasicOption
  /** Static tokens: name (the caller's identity) → `{ token, tags }`; or `{ auth (token, request) }` answering an Avatar, tags or null. Default: none. */
  bearer?: BearerOption
  /** The scheme name of bearer credentials (static tokens, `bearer.auth`, JWTs, API keys) and of their challenges. Default: `Bearer`. */
  bearerType?: string
  /** `insensitive`: the bearer scheme in any letter case (RFC 9110); `exact`: only as `bearerType` writes it (RFC 6750 as @fastify/bearer-auth reads it). Default: `insensitive`. */
  bearerCase?: BearerCase
  /** Basic password checks (cache misses) in flight at most; one more is refused with 503 and `Retry-After`. Default: `16`. */
  basicConcurrency?: number
  /** Lock a Basic identity (and client address) after failed passwords, as the server's login does. Default: off. */
  basicLockout?: BasicLockoutOptions
  /**
   * Seconds each call into your code or a store may take (`basic.validate`,
   * `bearer.auth`, a `UserStore`'s `verify` and `standing`, `apiKeys.verify`,
   * the lockout store, a JWT verifier's `key` and `isRevoked`); past it the
   * request gets a 503 and frees what it held. From 0.001 to 300. Default: `5`.
   */
  callbackTimeout?: number
  /** Answer an anonymous caller that a route's `authRule` refuses with 401 and the challenges, not 403; per route `config.challengeAnonymous`. Default: `false`. */
  challengeAnonymous?: boolean
  /** JWT verifiers, each with a `name` (callers get backend `jwt:<name>`), tried in this order. Default: none. */
  jwt?: readonly JwtVerifierOptions[]
  /**
   * A cookie holding a JWT, read only when the request has no
   * `Authorization` header and checked by the `jwt` verifiers; the csrf
   * component then treats it as it treats the session cookie. Default: none.
   */
  jwtCookie?: string
  /** Where `gak_` API keys are verified. Default: none (API keys refused). */
  apiKeys?: ApiKeyStore
  /** Realm of the challenges. Default: `gatehouse`. */
  realm?: string
  /** Cache of verified `passwordHash` credentials. Default: `{ max: 1000, ttl: 300 }` (seconds). */
  basicCache?: Partial<CacheOptions>
  /** Cache of verified JWTs, never past `exp` or `iat + maxAge`. Default: `{ max: 10000, ttl: 300 }` (seconds). */
  jwtCache?: Partial<CacheOptions>
}

/** {@link AuthOptions} with the defaults applied. */
export interface ResolvedAuthOptions {
  readonly basic: BasicOption
  readonly bearer: BearerOption
  readonly bearerType: string
  readonly bearerCase: BearerCase
  readonly basicConcurrency: number
  readonly basicLockout: BasicLockoutOptions | undefined
  readonly callbackTimeout: number
  readonly challengeAnonymous: boolean
  readonly jwt: readonly JwtVerifierOptions[]
  readonly jwtCookie: string | undefined
  readonly apiKeys: ApiKeyStore | undefined
  readonly realm: string
  readonly basicCache: Readonly<CacheOptions>
  readonly jwtCache: Readonly<CacheOptions>
}

export const defaults: ResolvedAuthOptions = Object.freeze({
  basic: Object.freeze({}),
  bearer: Object.freeze({}),
  bearerType: 'Bearer',
  bearerCase: 'insensitive',
  basicConcurrency: 16,
  basicLockout: undefined,
  callbackTimeout: CALLBACK_TIMEOUT_SECONDS,
  challengeAnonymous: false,
  jwt: Object.freeze([]),
  jwtCookie: undefined,
  apiKeys: undefined,
  realm: 'gatehouse',
  basicCache: Object.freeze({ max: 1000, ttl: 300 }),
  jwtCache: Object.freeze({ max: 10_000, ttl: 300 })
})

/** The sections this component reads; others are ignored (with a warning). */
export const KNOWN_SECTIONS: ReadonlySet<string> = new Set(Object.keys(defaults))

const tags = Type.Union([Type.String(), Type.Array(Type.String())])
// Strings, RegExps or a list of both: checked where the verifier is built,
// naming jwt.<name>.<option>; a config file can only spell strings.
const claimPatterns = Type.Unsafe<string | RegExp | ReadonlyArray<string | RegExp>>(Type.Any())
const cache = Type.Object({
  max: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  ttl: Type.Optional(Type.Number({ minimum: 0, maximum: 86_400 }))
}, { additionalProperties: false })

/** One JWT verifier (see `JwtVerifierOptions`). */
export const jwtVerifierSchema = Type.Object({
  name: Type.String({ pattern: JWT_NAME_PATTERN }),
  secret: Type.Optional(Type.String()),
  publicKey: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })])),
  jwksUri: Type.Optional(Type.String()),
  key: Type.Optional(Type.Unsafe<JwtVerifierOptions['key']>(Type.Any())),
  algorithm: Type.Union(JWT_ALGORITHMS.map((a) => Type.Literal(a))),
  issuer: Type.Optional(claimPatterns),
  audience: Type.Optional(claimPatterns),
  subject: Type.Optional(claimPatterns),
  jwtId: Type.Optional(claimPatterns),
  nonce: Type.Optional(claimPatterns),
  requiredClaims: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
  typ: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })])),
  isRevoked: Type.Optional(Type.Unsafe<JwtVerifierOptions['isRevoked']>(Type.Any())),
  cacheTtl: Type.Optional(Type.Number({ minimum: 0, maximum: 86_400 })),
  tags: Type.Optional(tags),
  tagsClaim: Type.Optional(Type.String({ minLength: 1 })),
  allowedTags: Type.Optional(tags),
  allowSuperadmin: Type.Optional(Type.Boolean()),
  requireExp: Type.Optional(Type.Boolean()),
  maxAge: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  identityClaim: Type.Optional(Type.String({ minLength: 1 })),
  clockTolerance: Type.Optional(Type.Number({ minimum: 0, maximum: 300 })),
  jwksCooldown: Type.Optional(Type.Number({ minimum: 0, maximum: 3600 }))
}, { additionalProperties: false })

// additionalProperties: true, unlike the other components: the spec says
// unknown auth sections are ignored (the plugin warns about each one).
// D-AUTH-10, D-AUTH-21.
const basicEntry = Type.Object({
  password: Type.Optional(Type.String()),
  // Checked where the file is loaded, naming `…password_hash` as written. D-CONFIG-11.
  passwordHash: Type.Optional(Type.String({ pattern: PASSWORD_HASH_PATTERN, errorMessage: PASSWORD_HASH_HINT })),
  tags: Type.Optional(tags)
}, { additionalProperties: false })
const bearerEntry = Type.Object({
  token: Type.String({ minLength: 1 }),
  tags: Type.Optional(tags)
}, { additionalProperties: false })

/**
 * A map of entries whose key `source` may also hold what a config file
 * cannot (a store, a function): every other key is an entry, checked by the
 * schema; `source` is an entry or anything, and the resolver tells them
 * apart by type and names what is wrong. `patternProperties` lets the
 * config loader convert the entries' snake_case keys.
 * D-AUTH-41.
 */
function entriesOr (entry: typeof basicEntry | typeof bearerEntry, ...sources: string[]): ReturnType<typeof Type.Object> {
  const properties = Object.fromEntries(sources.map((key) => [key, Type.Optional(Type.Union([entry, Type.Unsafe<unknown>(Type.Any())]))]))
  return Type.Object(properties, { additionalProperties: entry, patternProperties: { '^(.*)$': entry } })
}

export const authOptionsSchema = Type.Object({
  basic: Type.Optional(entriesOr(basicEntry, 'users', 'validate')),
  bearer: Type.Optional(entriesOr(bearerEntry, 'auth')),
  bearerType: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: TOKEN_PATTERN })),
  bearerCase: Type.Optional(Type.Union([Type.Literal('insensitive'), Type.Literal('exact')])),
  basicConcurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  basicLockout: Type.Optional(Type.Object({
    store: Type.Optional(Type.Unsafe<LockoutStore>(Type.Any())),
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: LOCKOUT_LIMITS.maxAttempts })),
    backoff: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: LOCKOUT_LIMITS.backoff })),
    addressMaxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: LOCKOUT_LIMITS.maxAttempts })),
    resetAfter: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: LOCKOUT_LIMITS.resetAfter }))
  }, { additionalProperties: false })),
  callbackTimeout: Type.Optional(Type.Number({ minimum: CALLBACK_TIMEOUT_LIMITS.min, maximum: CALLBACK_TIMEOUT_LIMITS.max })),
  challengeAnonymous: Type.Optional(Type.Boolean()),
  jwt: Type.Optional(Type.Array(jwtVerifierSchema)),
  jwtCookie: Type.Optional(Type.String({ pattern: TOKEN_PATTERN })),
  apiKeys: Type.Optional(Type.Unsafe<ApiKeyStore>(Type.Any())),
  realm: Type.Optional(Type.String({ pattern: NO_CONTROL_CHARACTERS_PATTERN })),
  basicCache: Type.Optional(cache),
  jwtCache: Type.Optional(cache)
}, { additionalProperties: true })

const JWT_NAME = new RegExp(JWT_NAME_PATTERN)

/**
 * Checks the verifier list: a list, every verifier named, no name twice. The rest is `JwtVerifier.create`'s.
 * D-AUTH-20: one list shape everywhere; names keep backends stable.
 */
function verifierList (jwt: unknown): readonly JwtVerifierOptions[] {
  if (jwt === undefined) return defaults.jwt
  if (!Array.isArray(jwt)) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG('jwt', 'must be a list of verifiers, each with a name: [{ name: "idp", algorithm: "RS256", … }]')
  }
  const names = new Set<string>()
  jwt.forEach((verifier: unknown, i) => {
    const name = isPlainObject(verifier) ? verifier.name : undefined
    if (typeof name !== 'string' || !JWT_NAME.test(name)) {
      throw new GATEHOUSE_AUTH_INVALID_CONFIG(`jwt[${i}].name`, 'is required: 1–64 letters, digits, "_", "." or "-" (callers get backend jwt:<name>)')
    }
    if (names.has(name)) throw new GATEHOUSE_AUTH_INVALID_CONFIG(`jwt[${i}].name`, `"${name}" names two verifiers`)
    names.add(name)
  })
  return jwt as readonly JwtVerifierOptions[]
}

/**
 * Applies the defaults and checks what the schema cannot for a caller that
 * skipped it (`AuthCore.create`): the verifier list and the key store. The
 * entries themselves (passwords, tokens, keys, tags) are checked where they
 * are built, naming the entry (`basic.alice`, `jwt.idp.allowedTags`).
 */
export function resolveAuthOptions (options: AuthOptions = {}): ResolvedAuthOptions {
  const { apiKeys } = options
  if (apiKeys !== undefined && typeof (apiKeys as Partial<ApiKeyStore> | null)?.verify !== 'function') {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG('apiKeys', 'must be an ApiKeyStore (with a verify method)')
  }
  const { basicConcurrency = defaults.basicConcurrency, challengeAnonymous = defaults.challengeAnonymous } = options
  if (!Number.isInteger(basicConcurrency) || basicConcurrency < 1 || basicConcurrency > 10_000) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG('basicConcurrency', 'must be a whole number from 1 to 10000')
  }
  const { callbackTimeout = defaults.callbackTimeout } = options
  if (typeof callbackTimeout !== 'number' || !(callbackTimeout >= CALLBACK_TIMEOUT_LIMITS.min && callbackTimeout <= CALLBACK_TIMEOUT_LIMITS.max)) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG('callbackTimeout', `must be a number of seconds from ${CALLBACK_TIMEOUT_LIMITS.min} to ${CALLBACK_TIMEOUT_LIMITS.max}`)
  }
  if (typeof challengeAnonymous !== 'boolean') throw new GATEHOUSE_AUTH_INVALID_CONFIG('challengeAnonymous', 'must be true or false')
  const jwt = verifierList(options.jwt)
  const { jwtCookie } = options
  if (jwtCookie !== undefined) {
    if (typeof jwtCookie !== 'string' || !isToken(jwtCookie)) throw new GATEHOUSE_AUTH_INVALID_CONFIG('jwtCookie', 'must be a cookie name (an RFC 9110 token)')
    if (jwt.length === 0) throw new GATEHOUSE_AUTH_INVALID_CONFIG('jwtCookie', 'names the cookie of a JWT: configure a jwt verifier too')
  }
  return Object.freeze({
    basic: options.basic ?? defaults.basic,
    bearer: options.bearer ?? defaults.bearer,
    bearerType: options.bearerType ?? defaults.bearerType,
    bearerCase: options.bearerCase ?? defaults.bearerCase,
    basicConcurrency,
    basicLockout: options.basicLockout,
    callbackTimeout,
    challengeAnonymous,
    jwt,
    jwtCookie,
    apiKeys,
    realm: options.realm ?? defaults.realm,
    basicCache: Object.freeze({ ...defaults.basicCache, ...options.basicCache }),
    jwtCache: Object.freeze({ ...defaults.jwtCache, ...options.jwtCache })
  })
}
