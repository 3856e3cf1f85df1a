import { KeyObject, type webcrypto } from 'node:crypto'
import { createRemoteJWKSet, importJWK, importSPKI, type JWK } from 'jose'
import { Avatar } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'
import { checkClaims, type ClaimRules } from './jwt-claims.js'
import { keyProblem, signatureValid, type DecodedJws } from './jws.js'
import { tokenTagSettings, tokenTags, type TokenTagPolicy, type TokenTagSettings } from './token-tags.js'

/** Algorithms a verifier may pin; `none` is not one of them. */
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const
export type JwtAlgorithm = typeof JWT_ALGORITHMS[number]

/**
 * What a verifier's `name` may be, as a JSON-schema pattern: it becomes the
 * backend `jwt:<name>` (in logs and `request.scope.auth`) and names the
 * verifier in boot errors (`jwt.idp.allowedTags`).
 */
export const JWT_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$'

/** One JWT verifier: exactly one of secret, publicKey, jwksUri. */
export interface JwtVerifierOptions {
  /** Names the verifier (required, unique): callers get backend `jwt:<name>`. */
  name: string
  /** Shared secret for HS256/384/512 (at least as many bytes as the hash). */
  secret?: string
  /** PEM (SPKI) or JWK public key for RS/PS/ES/EdDSA. */
  publicKey?: string | JWK
  /** URL of a JWK Set for RS/PS/ES/EdDSA; fetched on first use, cached, refetched for an unknown `kid`. */
  jwksUri?: string
  /** The one algorithm this verifier accepts. */
  algorithm: JwtAlgorithm
  /** Accepted `iss` value(s); unchecked when absent. */
  issuer?: string | readonly string[]
  /** Accepted `aud` value(s); unchecked when absent. */
  audience?: string | readonly string[]
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
  /** The key set could not be fetched: not the caller's fault. */
  readonly unavailable?: boolean
}

/** A verified token: the caller, and until when the verification holds (ms). */
export interface VerifiedJwt {
  readonly avatar: Avatar
  readonly validUntil: number
}

type RemoteKeys = ReturnType<typeof createRemoteJWKSet>

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

const list = (v: string | readonly string[] | undefined): readonly string[] | undefined =>
  v === undefined ? undefined : typeof v === 'string' ? [v] : [...v]

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

/** One configured verifier, keys imported once. */
export class JwtVerifier {
  readonly name: string
  readonly algorithm: JwtAlgorithm
  readonly #key: KeyObject | Buffer | undefined
  readonly #remote: RemoteKeys | undefined
  readonly #remoteKeys = new WeakMap<object, KeyObject | string>()
  readonly #rules: ClaimRules
  readonly #tags: readonly string[]
  readonly #tagPolicy: TokenTagPolicy
  readonly #identityClaim: string

  private constructor (name: string, options: JwtVerifierOptions, key: KeyObject | Buffer | undefined, remote: RemoteKeys | undefined, tags: TokenTagSettings) {
    this.name = name
    this.algorithm = options.algorithm
    this.#key = key
    this.#remote = remote
    const issuer = list(options.issuer)
    const audience = list(options.audience)
    this.#rules = {
      clockTolerance: options.clockTolerance ?? 5,
      requireExp: options.requireExp ?? true,
      ...(options.maxAge === undefined ? {} : { maxAge: options.maxAge }),
      ...(issuer === undefined ? {} : { issuer }),
      ...(audience === undefined ? {} : { audience })
    }
    this.#tags = tags.tags
    this.#tagPolicy = tags.policy
    this.#identityClaim = options.identityClaim ?? 'sub'
  }

  /** Validates the options and imports the key; throws `GATEHOUSE_AUTH_INVALID_CONFIG` naming the verifier. */
  static async create (options: JwtVerifierOptions): Promise<JwtVerifier> {
    const { name } = options
    const fail = (problem: string): never => { throw new GATEHOUSE_AUTH_INVALID_CONFIG(`jwt.${name}`, problem) }
    const { algorithm, secret, publicKey, jwksUri } = options
    if (!(JWT_ALGORITHMS as readonly string[]).includes(algorithm)) fail(`algorithm must be one of ${JWT_ALGORITHMS.join(', ')}`)
    if ([secret, publicKey, jwksUri].filter((s) => s !== undefined).length !== 1) fail('give exactly one of secret, publicKey, jwksUri')
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
      return new JwtVerifier(name, options, bytes, undefined, tags)
    }
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
      return new JwtVerifier(name, options, key, undefined, tags)
    }
    let url: URL | undefined
    try {
      url = new URL(jwksUri!)
    } catch {}
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) fail('jwksUri must be an absolute http(s) URL')
    const cooldown = options.jwksCooldown ?? 30
    if (!(cooldown >= 0 && cooldown <= 3600)) fail('jwksCooldown must be from 0 to 3600 seconds')
    return new JwtVerifier(name, options, undefined, createRemoteJWKSet(url!, { timeoutDuration: 5000, cooldownDuration: cooldown * 1000, cacheMaxAge: 600_000 }), tags)
  }

  /**
   * Verifies a decoded token whose header `alg` equals this verifier's
   * algorithm: synchronously with a configured key, asynchronously when the
   * key comes from a remote key set. Never throws or rejects.
   */
  verify (jws: DecodedJws, now: number): VerifiedJwt | JwtFailure | Promise<VerifiedJwt | JwtFailure> {
    if (this.#key !== undefined) return this.#check(jws, this.#key, now)
    return this.#remote!(jws.header as Parameters<RemoteKeys>[0], undefined as never).then((cryptoKey) => {
      let key = this.#remoteKeys.get(cryptoKey)
      if (key === undefined) {
        const keyObject = KeyObject.from(cryptoKey as webcrypto.CryptoKey)
        key = keyProblem(this.algorithm, keyObject) ?? keyObject
        this.#remoteKeys.set(cryptoKey, key)
      }
      return typeof key === 'string' ? { detail: 'No key matches the token' } : this.#check(jws, key, now)
    }, describeKeySetError)
  }

  #check (jws: DecodedJws, key: KeyObject | Buffer, now: number): VerifiedJwt | JwtFailure {
    // D-AUTH-01: the signature is checked before the payload is parsed.
    if (!signatureValid(this.algorithm, key, jws)) return { detail: 'The token signature is invalid' }
    const checked = checkClaims(jws.payload, this.#rules, now)
    if ('detail' in checked) return checked
    const { claims, validUntil } = checked
    const identity = claims[this.#identityClaim]
    if (typeof identity !== 'string' || identity === '') return { detail: `The token has no ${this.#identityClaim} claim` }
    const granted = tokenTags(claims, this.#tagPolicy)
    if ('detail' in granted) return granted
    const tags = granted.length === 0 ? this.#tags : [...this.#tags, ...granted]
    return { avatar: new Avatar(identity, { tags, backend: `jwt:${this.name}`, authenticatedAt: authTime(claims.auth_time, now, this.#rules.clockTolerance) }), validUntil }
  }
}
