import { webcrypto } from 'node:crypto'
import { createRemoteJWKSet, decodeProtectedHeader, importJWK, importSPKI, jwtVerify, type JWK, type JWTPayload } from 'jose'
import { Avatar, parseTags } from '@gatehouse/core'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'

/** Algorithms a verifier may pin; `none` is not one of them. */
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const
export type JwtAlgorithm = typeof JWT_ALGORITHMS[number]

/** One JWT verifier: exactly one of secret, publicKey, jwksUri. */
export interface JwtVerifierOptions {
  /** Names the verifier: callers get backend `jwt:<name>`. Default: its position. */
  name?: string
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
  /** Tags every caller of this verifier gets, besides the `tags` claim. */
  tags?: string | readonly string[]
  /** Claim holding the identity. Default: `sub`. */
  identityClaim?: string
  /** Seconds of leeway for `exp` and `nbf`. Default: 5. */
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

type VerificationKey = Parameters<typeof jwtVerify>[1]

const MIN_SECRET_BYTES: Record<string, number> = { HS256: 32, HS384: 48, HS512: 64 }

function describe (err: unknown): JwtFailure {
  const { code, claim } = err as { code?: string, claim?: string }
  switch (code) {
    case 'ERR_JWT_EXPIRED': return { detail: 'The token has expired' }
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'nbf') return { detail: 'The token is not valid yet' }
      if (claim === 'iss') return { detail: 'The token issuer is not accepted' }
      if (claim === 'aud') return { detail: 'The token audience is not accepted' }
      return { detail: 'The token claims are invalid' }
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED': return { detail: 'The token signature is invalid' }
    case 'ERR_JWKS_NO_MATCHING_KEY': return { detail: 'No key matches the token' }
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS': return { detail: 'The token key is ambiguous' }
    case 'ERR_JOSE_ALG_NOT_ALLOWED': return { detail: 'The token algorithm is not accepted' }
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
    case 'ERR_JOSE_NOT_SUPPORTED': return { detail: 'The token is malformed' }
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID': return { detail: 'The signing keys are unavailable', unavailable: true }
    default:
      // A failed fetch of the key set (network error, HTTP error status).
      return { detail: 'The signing keys are unavailable', unavailable: true }
  }
}

/** A verified token: the caller, and until when the verification holds (ms). */
export interface VerifiedJwt {
  readonly avatar: Avatar
  readonly validUntil: number
}

/** One configured verifier, keys imported once. */
export class JwtVerifier {
  readonly name: string
  readonly algorithm: JwtAlgorithm
  readonly #key: VerificationKey
  readonly #options: { algorithms: string[], issuer?: string | string[], audience?: string | string[], clockTolerance: number }
  readonly #tags: readonly string[]
  readonly #identityClaim: string

  private constructor (name: string, algorithm: JwtAlgorithm, key: VerificationKey, options: JwtVerifierOptions) {
    this.name = name
    this.algorithm = algorithm
    this.#key = key
    this.#options = {
      algorithms: [algorithm],
      clockTolerance: options.clockTolerance ?? 5,
      ...(options.issuer === undefined ? {} : { issuer: typeof options.issuer === 'string' ? options.issuer : [...options.issuer] }),
      ...(options.audience === undefined ? {} : { audience: typeof options.audience === 'string' ? options.audience : [...options.audience] })
    }
    this.#tags = parseTags(options.tags)
    this.#identityClaim = options.identityClaim ?? 'sub'
  }

  /** Validates the options and imports the key; throws `GATEHOUSE_AUTH_INVALID_CONFIG` naming the verifier. */
  static async create (options: JwtVerifierOptions, name: string): Promise<JwtVerifier> {
    const where = `jwt.${name}`
    const fail = (problem: string): never => { throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, problem) }
    const { algorithm, secret, publicKey, jwksUri } = options
    if (!(JWT_ALGORITHMS as readonly string[]).includes(algorithm)) fail(`algorithm must be one of ${JWT_ALGORITHMS.join(', ')}`)
    const sources = [secret, publicKey, jwksUri].filter((s) => s !== undefined)
    if (sources.length !== 1) fail('give exactly one of secret, publicKey, jwksUri')
    const symmetric = algorithm.startsWith('HS')
    let key: VerificationKey
    if (secret !== undefined) {
      if (!symmetric) fail(`${algorithm} needs publicKey or jwksUri; a secret only works with HS256/384/512`)
      const bytes = new TextEncoder().encode(secret)
      if (bytes.byteLength < MIN_SECRET_BYTES[algorithm]!) fail(`an ${algorithm} secret must be at least ${MIN_SECRET_BYTES[algorithm]!} bytes`)
      key = await webcrypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: `SHA-${algorithm.slice(2)}` }, false, ['verify'])
    } else if (symmetric) {
      fail(`${algorithm} needs a secret; publicKey and jwksUri are for asymmetric algorithms`)
    } else if (publicKey !== undefined) {
      try {
        key = typeof publicKey === 'string'
          ? await importSPKI(publicKey, algorithm)
          : await importJWK(publicKey, algorithm) as VerificationKey
      } catch (err) {
        fail(`publicKey cannot be used for ${algorithm}: ${(err as Error).message}`)
      }
    } else {
      let url: URL | undefined
      try {
        url = new URL(jwksUri!)
      } catch {}
      if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) fail('jwksUri must be an absolute http(s) URL')
      const cooldown = options.jwksCooldown ?? 30
      if (!(cooldown >= 0 && cooldown <= 3600)) fail('jwksCooldown must be from 0 to 3600 seconds')
      key = createRemoteJWKSet(url!, { timeoutDuration: 5000, cooldownDuration: cooldown * 1000, cacheMaxAge: 600_000 })
    }
    if (options.clockTolerance !== undefined && !(options.clockTolerance >= 0 && options.clockTolerance <= 300)) {
      fail('clockTolerance must be from 0 to 300 seconds')
    }
    return new JwtVerifier(name, algorithm, key!, options)
  }

  /** Verifies `token`; resolves with the caller or a failure (never rejects). */
  async verify (token: string, now: number): Promise<VerifiedJwt | JwtFailure> {
    let payload: JWTPayload
    try {
      ({ payload } = await jwtVerify(token, this.#key as Parameters<typeof jwtVerify>[1], { ...this.#options, currentDate: new Date(now) }))
    } catch (err) {
      return describe(err)
    }
    const identity = payload[this.#identityClaim]
    if (typeof identity !== 'string' || identity === '') return { detail: `The token has no ${this.#identityClaim} claim` }
    const claimed = payload.tags
    if (claimed !== undefined && claimed !== null && typeof claimed !== 'string' &&
      !(Array.isArray(claimed) && claimed.every((tag) => typeof tag === 'string'))) {
      return { detail: 'The tags claim must be a list or a comma-separated string' }
    }
    const tags = [...this.#tags, ...parseTags(claimed as string | string[] | null | undefined)]
    const avatar = new Avatar(identity, { tags, backend: `jwt:${this.name}` })
    return { avatar, validUntil: typeof payload.exp === 'number' ? payload.exp * 1000 : Number.POSITIVE_INFINITY }
  }
}

/** The `alg` of a token's protected header, or undefined when it cannot be decoded. */
export function tokenAlgorithm (token: string): string | undefined {
  try {
    return decodeProtectedHeader(token).alg
  } catch {
    return undefined
  }
}
