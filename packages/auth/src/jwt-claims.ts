// RFC 7519 §4.1 checks of a verified token's claims.

/** What the claims are checked against. */
export interface ClaimRules {
  readonly issuer?: readonly string[]
  readonly audience?: readonly string[]
  /** Seconds of leeway for exp and nbf. */
  readonly clockTolerance: number
}

const isNumericDate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/** The parsed claims set, or the reason it is refused (RFC 6750 error_description words). */
export function checkClaims (payload: string, rules: ClaimRules, now: number): { readonly claims: Record<string, unknown> } | { readonly detail: string } {
  let claims: unknown
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    return { detail: 'The token is malformed' }
  }
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return { detail: 'The token claims are invalid' }
  const { exp, nbf, iat, iss, aud } = claims as Record<string, unknown>
  const seconds = Math.floor(now / 1000)
  if ((exp !== undefined && !isNumericDate(exp)) || (nbf !== undefined && !isNumericDate(nbf)) || (iat !== undefined && !isNumericDate(iat))) {
    return { detail: 'The token claims are invalid' }
  }
  if (exp !== undefined && exp <= seconds - rules.clockTolerance) return { detail: 'The token has expired' }
  if (nbf !== undefined && nbf > seconds + rules.clockTolerance) return { detail: 'The token is not valid yet' }
  if (rules.issuer !== undefined && (typeof iss !== 'string' || !rules.issuer.includes(iss))) {
    return { detail: 'The token issuer is not accepted' }
  }
  if (rules.audience !== undefined) {
    const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : []
    if (!audiences.some((a) => typeof a === 'string' && rules.audience!.includes(a))) return { detail: 'The token audience is not accepted' }
  }
  return { claims: claims as Record<string, unknown> }
}
