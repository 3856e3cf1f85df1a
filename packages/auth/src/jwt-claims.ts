// RFC 7519 §4.1 checks of a verified token's claims: one checker for every algorithm (D-AUTH-01).
import type { ClaimMatcher } from './jwt-matchers.js'
import { MALFORMED_PAYLOAD } from './jws.js'

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

/** The claims set (the payload as `DecodedJws.claims` parsed it), or the reason it is refused (RFC 6750 error_description words). */
export function checkClaims (claims: unknown, rules: ClaimRules, now: number): CheckedClaims | { readonly detail: string, readonly expired?: true } {
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
