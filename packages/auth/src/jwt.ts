import { KeyObject, type webcrypto } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { createRemoteJWKSet, importJWK, importSPKI, type JWK } from 'jose'
import { Avatar, parseTags, SUPERADMIN, TAG_CHARACTERS } from '@fastify-gatehouse/core'
import { tokenTagSettings, type TokenTagPolicy, type TokenTagSettings } from './config-tags.js'
import { GATEHOUSE_AUTH_INVALID_CONFIG, REVOCATION_UNAVAILABLE } from './errors.js'
import { keyProblem, signatureValid, type ClaimRules, type DecodedJws } from './jws.js'
import { KeyResolver, type JwtKeyResolver } from './jwt-key-resolver.js'
import { compileClaimPatterns, type ClaimMatcher, type ClaimPatterns } from './jwt-matchers.js'
import { claimPolicy, type ClaimPolicy } from './jwt-policy.js'
import { RevocationCheck, type JwtRevocationCheck, type Revocation } from './jwt-revocation.js'
import { CALLBACK_TIMEOUT_SECONDS } from './outside-call.js'

/** Algorithms a verifier may pin; `none` is not one of them. */
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const
export type JwtAlgorithm = typeof JWT_ALGORITHMS[number]

/**
 * What a verifier's `name` may be, as a JSON-schema pattern: it becomes the
 * backend `jwt:<name>` (in logs and `request.scope.auth`) and names the
 * verifier in boot errors (`jwt.idp.allowedTags`).
 */
export const JWT_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$'

/** One JWT verifier: exactly one of secret, publicKey, jwksUri, key. */
export interface JwtVerifierOptions {
  /** Names the verifier (required, unique): callers get backend `jwt:<name>`. */
  name: string
  /** Shared secret for HS256/384/512 (at least as many bytes as the hash). */
  secret?: string
  /** PEM (SPKI) or JWK public key for RS/PS/ES/EdDSA. */
  publicKey?: string | JWK
  /** URL of a JWK Set for RS/PS/ES/EdDSA; fetched on first use, cached, refetched for an unknown `kid`. */
  jwksUri?: string
  /**
   * A function answering the key for each token from its header and its
   * (not yet verified) claims, sync or async: a secret for HS*, a public key
   * (PEM, JWK, KeyObject, CryptoKey) otherwise, or null for "no key". The
   * algorithm stays pinned. A throw, a rejection, no answer within `callbackTimeout` (5 s), or a
   * key that does not fit the algorithm is a 503. Imported keys are cached.
   */
  key?: JwtKeyResolver
  /** The one algorithm this verifier accepts. */
  algorithm: JwtAlgorithm
  /** Accepted `iss`: exact strings and/or RegExps (any matching); unchecked when absent. */
  issuer?: ClaimPatterns
  /** Accepted `aud`: exact strings and/or RegExps; a token's `aud` list passes when one element matches; unchecked when absent. */
  audience?: ClaimPatterns
  /** Accepted `sub`, like `issuer`; unchecked when absent. */
  subject?: ClaimPatterns
  /** Accepted `jti`, like `issuer`; unchecked when absent. */
  jwtId?: ClaimPatterns
  /** Accepted `nonce`, like `issuer`; unchecked when absent. */
  nonce?: ClaimPatterns
  /** Claims that must be present (any value, `null` included). Default: none beyond `exp`. */
  requiredClaims?: readonly string[]
  /**
   * Accepted header `typ` value(s), e.g. `'at+jwt'` (RFC 9068): compared
   * case-insensitively, with or without `application/`; a token without
   * `typ` is refused. Default: unchecked.
   */
  typ?: string | readonly string[]
  /**
   * Whether a verified token is revoked, sync or async. A `true` answer is
   * remembered until the token expires; a `false` one as long as the
   * verified token is cached (`cacheTtl`). Default: none.
   */
  isRevoked?: JwtRevocationCheck
  /**
   * Seconds a verified token of this verifier stays cached (so how long an
   * `isRevoked` "no" is trusted), at most `jwtCache.ttl`, never past `exp`.
   * 0: verified (and asked) on every request. Default: `jwtCache.ttl`.
   */
  cacheTtl?: number
  /**
   * Tags every caller of this verifier gets (configuration, not token
   * content). SUPERADMIN among them needs `allowSuperadmin`. Default: none.
   */
  tags?: string | readonly string[]
  /**
   * Claim whose tags (a list or a comma-separated string) the caller gets,
   * e.g. `'tags'`. A tag outside the rule grammar's alphabet refuses the
   * token. Default: none — tokens grant no tags.
   */
  tagsClaim?: string
  /** With `tagsClaim`: the only tags a token may grant; others in the claim are dropped. Default: any tag but SUPERADMIN. */
  allowedTags?: string | readonly string[]
  /** Whether this verifier's tokens may grant SUPERADMIN (the admin API), from the claim or `tags`. Default: false. */
  allowSuperadmin?: boolean
  /** Whether a token without `exp` is refused. Default: true. */
  requireExp?: boolean
  /** Seconds a token is accepted after its `iat`; `iat` is then required. Default: none (no limit but `exp`). */
  maxAge?: number
  /** Claim holding the identity. Default: `sub`. */
  identityClaim?: string
  /** Seconds of leeway for `exp`, `nbf`, `iat` and `maxAge`. Default: 5. */
  clockTolerance?: number
  /** With `jwksUri`: seconds before an unknown `kid` may trigger another fetch. Default: 30. */
  jwksCooldown?: number
}

/** Why a verifier refused a token, in RFC 6750 `error_description` words. */
export interface JwtFailure {
  readonly detail: string
  /** The key set could not be fetched, or a hook failed: not the caller's fault (a 503). */
  readonly unavailable?: boolean
  /** With `unavailable`: the 503's code. Default: `GATEHOUSE_AUTH_KEYS_UNAVAILABLE`. */
  readonly code?: string
  /** With `unavailable`: what went wrong, for the log. */
  readonly cause?: unknown
  /** The token was valid once and has expired (`exp` or `maxAge`). */
  readonly expired?: true
}

/** A verified token: the caller, and until when the verification holds (ms). */
export interface VerifiedJwt {
  readonly avatar: Avatar
  /** Until when the avatar may be cached: `expiresAt`, capped by the verifier's `cacheTtl`. */
  readonly validUntil: number
  /** Until when the token itself holds: `exp`, or `iat + maxAge`, whichever is first. */
  readonly expiresAt: number
}

type RemoteKeys = ReturnType<typeof createRemoteJWKSet>

/** Revoked tokens remembered per verifier (most recently refused kept). */
export const REVOKED_TOKENS_MAX = 10_000

// D-AUTH-04: RFC 7518 §3.2.
const MIN_SECRET_BYTES: Record<string, number> = { HS256: 32, HS384: 48, HS512: 64 }

// Failures of jose's remote key set, in RFC 6750 words.
function describeKeySetError (err: unknown): JwtFailure {
  switch ((err as { code?: string }).code) {
    case 'ERR_JWKS_NO_MATCHING_KEY': return { detail: 'No key matches the token' }
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS': return { detail: 'The token key is ambiguous' }
    default:
      // Timeout, network error, HTTP error status, not a key set.
      return { detail: 'The signing keys are unavailable', unavailable: true }
  }
}

/**
 * When the token says its subject signed in (OIDC Core's `auth_time`, in
 * seconds), in ms; `null` without one: the token's issue time says nothing
 * about the sign-in, so such a caller is never fresh. A sign-in in the
 * future (beyond the clock tolerance: an issuer's bug or skewed clock) is
 * no sign-in either: taken as given it would stay "fresh" for the token's
 * whole life.
 * D-AUTH-30.
 */
function authTime (claim: unknown, now: number, toleranceSeconds: number): number | null {
  const at = typeof claim === 'number' ? claim * 1000 : Number.NaN
  return Number.isFinite(at) && at <= now + toleranceSeconds * 1000 ? at : null
}

// Refusals of a verifier that cannot accept a token whatever its signature.
const NO_MATCHING_KEY: JwtFailure = Object.freeze({ detail: 'No key matches the token' })
const ISSUER_NOT_ACCEPTED: JwtFailure = Object.freeze({ detail: 'The token issuer is not accepted' })

/** One configured verifier, keys imported once. */
export class JwtVerifier {
  readonly name: string
  readonly algorithm: JwtAlgorithm
  readonly #key: KeyObject | Buffer | undefined
  // The `kid` of a JWK publicKey: tokens naming another key are not its.
  readonly #kid: string | undefined
  readonly #remote: RemoteKeys | undefined
  readonly #remoteKeys = new WeakMap<object, KeyObject | string>()
  readonly #rules: ClaimRules
  readonly #tags: readonly string[]
  readonly #tagSet: ReadonlySet<string>
  readonly #tagPolicy: TokenTagPolicy
  readonly #identityClaim: string
  readonly #resolver: KeyResolver | undefined
  readonly #policy: ClaimPolicy | undefined
  readonly #revocation: RevocationCheck | undefined
  readonly #cacheTtlMs: number | undefined

  private constructor (name: string, options: JwtVerifierOptions, key: KeyObject | Buffer | undefined, remote: RemoteKeys | undefined, tags: TokenTagSettings, extras: VerifierExtras) {
    const timeoutMs = extras.timeoutMs ?? CALLBACK_TIMEOUT_SECONDS * 1000
    this.name = name
    this.algorithm = options.algorithm
    this.#key = key
    this.#remote = remote
    const { issuer, audience } = extras
    const { publicKey } = options
    this.#kid = typeof publicKey === 'object' && typeof publicKey.kid === 'string' ? publicKey.kid : undefined
    this.#resolver = options.key === undefined ? undefined : new KeyResolver(options.key, options.algorithm, timeoutMs)
    this.#policy = extras.policy
    this.#revocation = options.isRevoked === undefined ? undefined : new RevocationCheck(options.isRevoked, REVOKED_TOKENS_MAX, timeoutMs)
    this.#cacheTtlMs = options.cacheTtl === undefined ? undefined : options.cacheTtl * 1000
    this.#rules = {
      clockTolerance: options.clockTolerance ?? 5,
      requireExp: options.requireExp ?? true,
      ...(options.maxAge === undefined ? {} : { maxAge: options.maxAge }),
      ...(issuer === undefined ? {} : { issuer }),
      ...(audience === undefined ? {} : { audience })
    }
    this.#tags = tags.tags
    this.#tagSet = new Set(tags.tags)
    this.#tagPolicy = tags.policy
    this.#identityClaim = options.identityClaim ?? 'sub'
  }

  /**
   * Validates the options and imports the key; throws `GATEHOUSE_AUTH_INVALID_CONFIG` naming the verifier.
   * `timeoutMs` limits each call of its `key` and `isRevoked` (the auth option `callbackTimeout`).
   */
  static async create (options: JwtVerifierOptions, timeoutMs = CALLBACK_TIMEOUT_SECONDS * 1000): Promise<JwtVerifier> {
    const { name } = options
    const fail = (problem: string): never => { throw new GATEHOUSE_AUTH_INVALID_CONFIG(`jwt.${name}`, problem) }
    const { algorithm, secret, publicKey, jwksUri } = options
    if (!(JWT_ALGORITHMS as readonly string[]).includes(algorithm)) fail(`algorithm must be one of ${JWT_ALGORITHMS.join(', ')}`)
    if ([secret, publicKey, jwksUri, options.key].filter((s) => s !== undefined).length !== 1) fail('give exactly one of secret, publicKey, jwksUri, key')
    const extras = { ...verifierExtras(options), timeoutMs }
    if (options.clockTolerance !== undefined && !(options.clockTolerance >= 0 && options.clockTolerance <= 300)) {
      fail('clockTolerance must be from 0 to 300 seconds')
    }
    if (options.requireExp !== undefined && typeof options.requireExp !== 'boolean') fail('requireExp must be true or false')
    if (options.maxAge !== undefined && !(typeof options.maxAge === 'number' && options.maxAge > 0 && Number.isFinite(options.maxAge))) {
      fail('maxAge must be a positive number of seconds')
    }
    const tags = tokenTagSettings(options, `jwt.${name}`)
    const symmetric = algorithm.startsWith('HS')
    if (secret !== undefined) {
      if (!symmetric) fail(`${algorithm} needs publicKey or jwksUri; a secret only works with HS256/384/512`)
      const bytes = Buffer.from(secret, 'utf8')
      if (bytes.byteLength < MIN_SECRET_BYTES[algorithm]!) fail(`an ${algorithm} secret must be at least ${MIN_SECRET_BYTES[algorithm]!} bytes`)
      return new JwtVerifier(name, options, bytes, undefined, tags, extras)
    }
    if (options.key !== undefined) return new JwtVerifier(name, options, undefined, undefined, tags, extras)
    if (symmetric) fail(`${algorithm} needs a secret; publicKey and jwksUri are for asymmetric algorithms`)
    if (publicKey !== undefined) {
      let key: KeyObject | undefined
      try {
        const imported = typeof publicKey === 'string' ? await importSPKI(publicKey, algorithm) : await importJWK(publicKey, algorithm)
        key = KeyObject.from(imported as webcrypto.CryptoKey)
      } catch (err) {
        fail(`publicKey cannot be used for ${algorithm}: ${(err as Error).message}`)
      }
      const problem = keyProblem(algorithm, key!)
      if (problem !== undefined) fail(`publicKey: ${problem}`)
      return new JwtVerifier(name, options, key, undefined, tags, extras)
    }
    let url: URL | undefined
    try {
      url = new URL(jwksUri!)
    } catch {}
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) fail('jwksUri must be an absolute http(s) URL')
    const cooldown = options.jwksCooldown ?? 30
    if (!(cooldown >= 0 && cooldown <= 3600)) fail('jwksCooldown must be from 0 to 3600 seconds')
    return new JwtVerifier(name, options, undefined, createRemoteJWKSet(url!, { timeoutDuration: 5000, cooldownDuration: cooldown * 1000, cacheMaxAge: 600_000 }), tags, extras)
  }

  /**
   * Why this verifier refuses `jws` whatever its signature, without checking
   * it: the token names a key (`kid`) other than this verifier's JWK, or,
   * when `byIssuer`, its payload has an `iss` outside this verifier's
   * `issuer` (or none). Undefined when it may accept it, or when the payload
   * is not JSON (the signature is then checked first, as always). A token
   * is refused by a skipped verifier exactly as it would be after the
   * check; nothing in it is trusted before a signature passes.
   * D-AUTH-58.
   */
  cannotAccept (jws: DecodedJws, byIssuer: boolean): JwtFailure | undefined {
    if (this.#kid !== undefined) {
      const kid = jws.header.kid
      if (typeof kid === 'string' && kid !== this.#kid) return NO_MATCHING_KEY
    }
    // Only exact issuers pick: a configured RegExp never runs on a payload
    // whose signature has not been checked (no ReDoS surface before it).
    const issuers = this.#rules.issuer?.exact
    if (byIssuer && issuers !== undefined) {
      const claims = jws.claims
      if (claims !== null && typeof claims === 'object') {
        const { iss } = claims as { iss?: unknown }
        if (typeof iss !== 'string' || !issuers.has(iss)) return ISSUER_NOT_ACCEPTED
      }
    }
    return undefined
  }

  /** Whether this verifier's `issuer` is exact strings only (tokens from others can be skipped unchecked). */
  get hasIssuers (): boolean {
    return this.#rules.issuer?.exact !== undefined
  }

  /**
   * Verifies a decoded token whose header `alg` equals this verifier's
   * algorithm: synchronously with a configured key, asynchronously when the
   * key comes from a remote key set. Never throws or rejects.
   */
  verify (jws: DecodedJws, now: number, request?: FastifyRequest): VerifiedJwt | JwtFailure | Promise<VerifiedJwt | JwtFailure> {
    if (this.#key !== undefined) {
      const result = this.#check(jws, this.#key, now)
      return this.#revocation === undefined ? result : this.#unlessRevoked(result, jws, now, request)
    }
    if (this.#resolver !== undefined) return this.#withResolvedKey(jws, now, request)
    return this.#remote!(jws.header as Parameters<RemoteKeys>[0], undefined as never).then((cryptoKey) => {
      let key = this.#remoteKeys.get(cryptoKey)
      if (key === undefined) {
        const keyObject = KeyObject.from(cryptoKey as webcrypto.CryptoKey)
        key = keyProblem(this.algorithm, keyObject) ?? keyObject
        this.#remoteKeys.set(cryptoKey, key)
      }
      return typeof key === 'string' ? { detail: 'No key matches the token' } : this.#unlessRevoked(this.#check(jws, key, now), jws, now, request)
    }, describeKeySetError)
  }

  #withResolvedKey (jws: DecodedJws, now: number, request: FastifyRequest | undefined): VerifiedJwt | JwtFailure | Promise<VerifiedJwt | JwtFailure> {
    const key = this.#resolver!.key(jws, request)
    const verified = (resolved: Awaited<typeof key>): VerifiedJwt | JwtFailure | Promise<VerifiedJwt | JwtFailure> =>
      'detail' in resolved ? resolved : this.#unlessRevoked(this.#check(jws, resolved, now), jws, now, request)
    return key instanceof Promise ? key.then(verified) : verified(key)
  }

  // The isRevoked hook, asked last: only about a token that passed every other check.
  #unlessRevoked (result: VerifiedJwt | JwtFailure, jws: DecodedJws, now: number, request: FastifyRequest | undefined): VerifiedJwt | JwtFailure | Promise<VerifiedJwt | JwtFailure> {
    if (this.#revocation === undefined || !('avatar' in result)) return result
    // A revoked token stays refused until it expires, not only for cacheTtl (D-AUTH-52).
    const answer = this.#revocation.check(jws.signingInput, result.avatar.claims!, result.expiresAt, now, request)
    return answer instanceof Promise ? answer.then((a) => revocationOutcome(a, result)) : revocationOutcome(answer, result)
  }

  #check (jws: DecodedJws, key: KeyObject | Buffer, now: number): VerifiedJwt | JwtFailure {
    // D-AUTH-01: the signature is checked before the payload is parsed.
    if (!signatureValid(this.algorithm, key, jws)) return { detail: 'The token signature is invalid' }
    const checked = jws.checkClaims(this.#rules, now)
    if ('detail' in checked) return checked
    const { claims } = checked
    const problem = this.#policy?.(jws.header, claims)
    if (problem !== undefined) return { detail: problem }
    const validUntil = this.#cacheTtlMs === undefined ? checked.validUntil : Math.min(checked.validUntil, now + this.#cacheTtlMs)
    const identity = claims[this.#identityClaim]
    if (typeof identity !== 'string' || identity === '') return { detail: `The token has no ${this.#identityClaim} claim` }
    const granted = tokenTags(claims, this.#tagPolicy)
    if ('detail' in granted) return granted
    // The verifier's own tags first, then the token's others: the list parseTags would make of both (D-AUTH-90).
    const tags = granted.length === 0 ? this.#tags : [...this.#tags, ...granted.filter((tag) => !this.#tagSet.has(tag))]
    let avatar: Avatar
    try {
      avatar = Avatar.withCheckedTags(identity, { tags, backend: `jwt:${this.name}`, authenticatedAt: authTime(claims.auth_time, now, this.#rules.clockTolerance), claims })
    } catch {
      // A number JSON cannot hold (1e400 parses as Infinity) or claims nested
      // past Avatar's depth: a refusal, never a 500 (verify never throws).
      return { detail: 'The token claims are not plain JSON data' }
    }
    return { avatar, validUntil, expiresAt: checked.validUntil }
  }
}

const NO_TAGS: readonly string[] = Object.freeze([])
// The rule grammar's alphabet, core's one definition (D-RULES-06).
const TAG = new RegExp(`^${TAG_CHARACTERS}+$`)

/**
 * The tags a verified token grants under `policy`: its claim read as a list
 * or a comma-separated string, every tag in the rule grammar's alphabet
 * (else the token is refused), then only those the policy allows (others
 * are dropped). The reason for a refusal is RFC 6750 `error_description`
 * words and never quotes the token.
 * D-AUTH-13: no claim is read unless named; D-AUTH-05: a wrong type refuses; D-AUTH-14: filtered, not refused.
 */
function tokenTags (claims: Readonly<Record<string, unknown>>, policy: TokenTagPolicy): readonly string[] | { readonly detail: string } {
  const { claim } = policy
  if (claim === undefined) return NO_TAGS
  const value = claims[claim]
  if (value === undefined || value === null) return NO_TAGS
  if (typeof value !== 'string' && !(Array.isArray(value) && value.every((tag) => typeof tag === 'string'))) {
    return { detail: `The ${claim} claim must be a list or a comma-separated string` }
  }
  const tags = parseTags(value as string | string[])
  if (!tags.every((tag) => TAG.test(tag))) return { detail: `The ${claim} claim holds a tag with characters other than letters, digits and _ . : -` }
  return tags.filter((tag) => (tag !== SUPERADMIN || policy.allowSuperadmin) && (policy.allowed === undefined || policy.allowed.has(tag)))
}

function revocationOutcome (answer: Revocation, verified: VerifiedJwt): VerifiedJwt | JwtFailure {
  if (answer === 'valid') return verified
  if (answer === 'revoked') return { detail: 'The token has been revoked' }
  return { detail: 'The revocation check failed', unavailable: true, code: REVOCATION_UNAVAILABLE, cause: answer.cause }
}

/** What `create` compiles besides the key: the claim matchers and the policy. */
interface VerifierExtras {
  readonly issuer: ClaimMatcher | undefined
  readonly audience: ClaimMatcher | undefined
  readonly policy: ClaimPolicy | undefined
  /** The limit of each call of `key` and `isRevoked`, in ms. */
  readonly timeoutMs?: number
}

/** Checks and compiles the options beyond the key; throws naming `jwt.<name>.<option>`. */
function verifierExtras (options: JwtVerifierOptions): VerifierExtras {
  const fail = (option: string, problem: string): never => { throw new GATEHOUSE_AUTH_INVALID_CONFIG(`jwt.${options.name}.${option}`, problem) }
  const matcher = (option: 'issuer' | 'audience'): ClaimMatcher | undefined =>
    options[option] === undefined ? undefined : compileClaimPatterns(options[option], (problem) => fail(option, problem))
  if (options.key !== undefined && typeof options.key !== 'function') fail('key', 'must be a function (header, claims, request) => key')
  if (options.isRevoked !== undefined && typeof options.isRevoked !== 'function') fail('isRevoked', 'must be a function (claims, request) => boolean')
  const { cacheTtl } = options
  if (cacheTtl !== undefined && !(typeof cacheTtl === 'number' && cacheTtl >= 0 && cacheTtl <= 86_400)) fail('cacheTtl', 'must be from 0 to 86400 seconds')
  return { issuer: matcher('issuer'), audience: matcher('audience'), policy: claimPolicy(options, fail) }
}
