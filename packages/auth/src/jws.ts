import { constants, createHmac, KeyObject, timingSafeEqual, verify } from 'node:crypto'
import { BoundedCache } from './bounded-cache.js'
import type { ClaimMatcher } from './jwt-matchers.js'

// Compact JWS (RFC 7515) signatures checked synchronously with node:crypto.
// jose is kept for key import and remote key sets; its WebCrypto verify is
// asynchronous and several times slower for HMAC (D-AUTH-01).

const HASH: Readonly<Record<string, string>> = {
  HS256: 'sha256',
  HS384: 'sha384',
  HS512: 'sha512',
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  PS256: 'sha256',
  PS384: 'sha384',
  PS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512'
}
const CURVE: Readonly<Record<string, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' }
const BASE64URL = /^[A-Za-z0-9_-]+$/

/** What {@link DecodedJws.claims} answers for a payload that is not JSON. */
export const MALFORMED_PAYLOAD = Symbol('malformed payload')
const NOT_PARSED = Symbol('not parsed')

/** What the claims are checked against. */
export interface ClaimRules {
  readonly issuer?: ClaimMatcher
  readonly audience?: ClaimMatcher
  /** Seconds of leeway for exp, nbf, iat and maxAge. */
  readonly clockTolerance: number
  /** Whether a token without `exp` is refused. */
  readonly requireExp: boolean
  /** Seconds a token is accepted after its `iat` (then required); unchecked when absent. */
  readonly maxAge?: number
}

/** Accepted claims, and until when (ms since the epoch) they hold: `exp`, or `iat + maxAge`, whichever is first. */
export interface CheckedClaims {
  readonly claims: Record<string, unknown>
  readonly validUntil: number
}

const isNumericDate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/**
 * A compact JWS split and its header parsed. The signature and the payload
 * stay encoded until first asked for, then are decoded once however many
 * verifiers look at them.
 */
export class DecodedJws {
  readonly header: Readonly<Record<string, unknown>>
  /** The payload, base64url. */
  readonly payload: string
  readonly signingInput: string
  readonly #encodedSignature: string
  #signature: Buffer | undefined
  #claims: unknown = NOT_PARSED

  constructor (header: Readonly<Record<string, unknown>>, payload: string, signingInput: string, signature: string) {
    this.header = header
    this.payload = payload
    this.signingInput = signingInput
    this.#encodedSignature = signature
  }

  /** The signature's bytes. */
  get signature (): Buffer {
    return (this.#signature ??= Buffer.from(this.#encodedSignature, 'base64url'))
  }

  /**
   * The payload parsed (any JSON value), or {@link MALFORMED_PAYLOAD}.
   * Read only after a signature check passed, or to skip verifiers that
   * could not accept the token whatever its signature (D-AUTH-01).
   */
  get claims (): unknown {
    if (this.#claims === NOT_PARSED) {
      try {
        this.#claims = JSON.parse(Buffer.from(this.payload, 'base64url').toString('utf8'))
      } catch {
        this.#claims = MALFORMED_PAYLOAD
      }
    }
    return this.#claims
  }

  /**
   * RFC 7519 §4.1 checks of the claims, one checker for every algorithm
   * (D-AUTH-01): the accepted claims, or the reason they are refused (RFC
   * 6750 error_description words). Asked only after the signature passed.
   * Beside the payload it parses, so a verification reads it in one call.
   */
  checkClaims (rules: ClaimRules, now: number): CheckedClaims | { readonly detail: string, readonly expired?: true } {
    const claims = this.claims
    if (claims === MALFORMED_PAYLOAD) return { detail: 'The token is malformed' }
    if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return { detail: 'The token claims are invalid' }
    const { exp, nbf, iat, iss, aud } = claims as Record<string, unknown>
    const seconds = Math.floor(now / 1000)
    const tolerance = rules.clockTolerance
    if ((exp !== undefined && !isNumericDate(exp)) || (nbf !== undefined && !isNumericDate(nbf)) || (iat !== undefined && !isNumericDate(iat))) {
      return { detail: 'The token claims are invalid' }
    }
    // D-AUTH-17: `exp` required by default; `maxAge` makes `iat` required; a future `iat` is refused.
    if (exp === undefined && rules.requireExp) return { detail: 'The token has no exp claim' }
    if (iat === undefined && rules.maxAge !== undefined) return { detail: 'The token has no iat claim' }
    // `expired`: the token was good once; auth's cookie reading may take it as absent (D-AUTH-53).
    if (exp !== undefined && exp <= seconds - tolerance) return { detail: 'The token has expired', expired: true }
    if (nbf !== undefined && nbf > seconds + tolerance) return { detail: 'The token is not valid yet' }
    if (iat !== undefined && iat > seconds + tolerance) return { detail: 'The token was issued in the future' }
    const aged = iat !== undefined && rules.maxAge !== undefined ? iat + rules.maxAge : undefined
    if (aged !== undefined && aged <= seconds - tolerance) return { detail: 'The token is too old', expired: true }
    if (rules.issuer !== undefined && !rules.issuer.test(iss)) {
      return { detail: 'The token issuer is not accepted' }
    }
    if (rules.audience !== undefined) {
      const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : []
      if (!audiences.some((a) => rules.audience!.test(a))) return { detail: 'The token audience is not accepted' }
    }
    const until = Math.min(exp ?? Number.POSITIVE_INFINITY, aged ?? Number.POSITIVE_INFINITY)
    return { claims: claims as Record<string, unknown>, validUntil: until * 1000 }
  }
}

type Header = Readonly<Record<string, unknown>> | 'not-a-jws' | 'critical'

// Tokens of one issuer share a handful of headers (alg, typ, kid): each is
// parsed once. Bounded; any header may be evicted, it is parsed again then.
const HEADERS = new BoundedCache<Header>(64)

function parseHeader (head: string): Header {
  let header: unknown
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'))
  } catch {
    return 'not-a-jws'
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header) || typeof (header as { alg?: unknown }).alg !== 'string') return 'not-a-jws'
  // RFC 7515 §4.1.11: extensions we do not understand must be refused (D-AUTH-01).
  if ('crit' in header || 'b64' in header) return 'critical'
  // Shared by every token with this header: nobody may change it.
  return Object.freeze(header as Record<string, unknown>)
}

/** Splits a compact JWS, or says why it is not one. The payload is not parsed here. */
export function decodeJws (token: string): DecodedJws | 'not-a-jws' | 'malformed' | 'critical' {
  const first = token.indexOf('.')
  const second = token.indexOf('.', first + 1)
  if (first === -1 || second === -1 || token.indexOf('.', second + 1) !== -1) return 'not-a-jws'
  const head = token.slice(0, first)
  const payload = token.slice(first + 1, second)
  const signature = token.slice(second + 1)
  if (!BASE64URL.test(head) || !BASE64URL.test(payload) || (signature !== '' && !BASE64URL.test(signature))) return 'malformed'
  let header = HEADERS.get(head, 0)
  if (header === undefined) {
    header = parseHeader(head)
    HEADERS.set(head, header, Number.POSITIVE_INFINITY)
  }
  return typeof header === 'string' ? header : new DecodedJws(header, payload, token.slice(0, second), signature)
}

/**
 * Whether `key` may verify `algorithm`; a reason when not (wrong type, curve, or an RSA key under 2048 bits).
 * D-AUTH-01: key types, RSA sizes (≥ 2048) and curves are checked at boot.
 */
export function keyProblem (algorithm: string, key: KeyObject | Buffer): string | undefined {
  if (algorithm.startsWith('HS')) return Buffer.isBuffer(key) ? undefined : `${algorithm} needs a secret`
  if (Buffer.isBuffer(key) || key.type !== 'public') return `${algorithm} needs a public key`
  const type = key.asymmetricKeyType
  if (algorithm.startsWith('RS') || algorithm.startsWith('PS')) {
    if (type !== 'rsa' && !(algorithm.startsWith('PS') && type === 'rsa-pss')) return `${algorithm} needs an RSA key`
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
    return bits >= 2048 ? undefined : `${algorithm} needs an RSA key of at least 2048 bits`
  }
  if (algorithm.startsWith('ES')) {
    return type === 'ec' && key.asymmetricKeyDetails?.namedCurve === CURVE[algorithm] ? undefined : `${algorithm} needs an EC key on ${CURVE[algorithm] ?? '?'}`
  }
  if (algorithm === 'EdDSA') return type === 'ed25519' || type === 'ed448' ? undefined : 'EdDSA needs an Ed25519 or Ed448 key'
  return `unsupported algorithm ${algorithm}`
}

/** Checks the signature of `jws` with `key` under `algorithm` (already pinned and matched by the caller). */
export function signatureValid (algorithm: string, key: KeyObject | Buffer, jws: DecodedJws): boolean {
  try {
    if (algorithm.startsWith('HS')) {
      // The signing input is base64url text: its latin1 bytes are its UTF-8 bytes.
      const mac = createHmac(HASH[algorithm]!, key as Buffer).update(jws.signingInput, 'latin1').digest()
      const signature = jws.signature
      return mac.length === signature.length && timingSafeEqual(mac, signature)
    }
    const data = Buffer.from(jws.signingInput, 'latin1')
    const publicKey = key as KeyObject
    if (algorithm.startsWith('RS')) return verify(HASH[algorithm]!, data, publicKey, jws.signature)
    if (algorithm.startsWith('PS')) {
      return verify(HASH[algorithm]!, data, { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, jws.signature)
    }
    if (algorithm.startsWith('ES')) return verify(HASH[algorithm]!, data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, jws.signature)
    if (algorithm === 'EdDSA') return verify(null, data, publicKey, jws.signature)
  } catch {
    // A signature of the wrong size or shape.
  }
  return false
}
