import { Type } from '@sinclair/typebox'
import type { ApiKeyStore } from './api-key.js'
import type { BasicEntry, CacheOptions } from './basic.js'
import type { BearerEntry } from './bearer.js'
import { JWT_ALGORITHMS, type JwtVerifierOptions } from './jwt.js'

/** Options of the auth component (the middleware form: verifiers keyed by name). */
export interface AuthOptions {
  /** User name → `{ password | passwordHash, tags }`. */
  basic?: Record<string, BasicEntry>
  /** Name (the caller's identity) → `{ token, tags }`. */
  bearer?: Record<string, BearerEntry>
  /** Name → verifier; callers get backend `jwt:<name>`. Tried in this order. */
  jwt?: Record<string, Omit<JwtVerifierOptions, 'name'>>
  /** Where `gak_` API keys are verified. Default: none (API keys refused). */
  apiKeys?: ApiKeyStore
  /** Realm of the challenges. Default: `gatehouse`. */
  realm?: string
  /** Cache of verified `passwordHash` credentials. Default: `{ max: 1000, ttl: 300 }` (seconds). */
  basicCache?: Partial<CacheOptions>
  /** Cache of verified JWTs, never past `exp` or `iat + maxAge`. Default: `{ max: 10000, ttl: 300 }` (seconds). */
  jwtCache?: Partial<CacheOptions>
}

/** The sections this component reads; others are ignored (with a warning). */
export const KNOWN_SECTIONS = new Set(['basic', 'bearer', 'jwt', 'apiKeys', 'realm', 'basicCache', 'jwtCache'])

const tags = Type.Union([Type.String(), Type.Array(Type.String())])
const cache = Type.Object({
  max: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  ttl: Type.Optional(Type.Number({ minimum: 0, maximum: 86_400 }))
}, { additionalProperties: false })

export const authOptionsSchema = Type.Object({
  basic: Type.Optional(Type.Record(Type.String(), Type.Object({
    password: Type.Optional(Type.String()),
    passwordHash: Type.Optional(Type.String()),
    tags: Type.Optional(tags)
  }, { additionalProperties: false }))),
  bearer: Type.Optional(Type.Record(Type.String(), Type.Object({
    token: Type.String({ minLength: 1 }),
    tags: Type.Optional(tags)
  }, { additionalProperties: false }))),
  jwt: Type.Optional(Type.Record(Type.String(), Type.Object({
    secret: Type.Optional(Type.String()),
    publicKey: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })])),
    jwksUri: Type.Optional(Type.String()),
    algorithm: Type.Union(JWT_ALGORITHMS.map((a) => Type.Literal(a))),
    issuer: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    audience: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    tags: Type.Optional(tags),
    tagsClaim: Type.Optional(Type.String({ minLength: 1 })),
    allowedTags: Type.Optional(tags),
    allowSuperadmin: Type.Optional(Type.Boolean()),
    requireExp: Type.Optional(Type.Boolean()),
    maxAge: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    identityClaim: Type.Optional(Type.String({ minLength: 1 })),
    clockTolerance: Type.Optional(Type.Number({ minimum: 0, maximum: 300 })),
    jwksCooldown: Type.Optional(Type.Number({ minimum: 0, maximum: 3600 }))
  }, { additionalProperties: false }))),
  apiKeys: Type.Optional(Type.Unsafe<ApiKeyStore>(Type.Any())),

  realm: Type.Optional(Type.String({ pattern: '^[^\\x00-\\x1f\\x7f]*$' })),
  basicCache: Type.Optional(cache),
  jwtCache: Type.Optional(cache)
}, { additionalProperties: true })
