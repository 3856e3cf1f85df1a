import { compileClaimPatterns, type ClaimMatcher, type ClaimPatterns } from './jwt-matchers.js'

// What a verifier asks of a verified token beyond RFC 7519's time, iss and
// aud checks (DecodedJws.checkClaims in jws.ts): its header `typ`, claims that must be
// present, and matchers on `sub`, `jti` and `nonce`. Compiled at boot;
// checked after the signature and the time claims.

/** The options of this file (documented on `JwtVerifierOptions`). */
export interface ClaimPolicyOptions {
  typ?: string | readonly string[]
  requiredClaims?: readonly string[]
  subject?: ClaimPatterns
  jwtId?: ClaimPatterns
  nonce?: ClaimPatterns
}

/** A compiled policy: the reason a token fails it (RFC 6750 error_description words), or undefined. */
export type ClaimPolicy = (header: Readonly<Record<string, unknown>>, claims: Readonly<Record<string, unknown>>) => string | undefined

// Claim names go into error descriptions, so into a WWW-Authenticate header (D-AUTH-13).
const CLAIM_NAME = /^[\x20-\x7e]+$/
// RFC 7515 §4.1.9: a media type, `application/` omitted or not: type/subtype, RFC 9110 token characters.
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:\/[!#$%&'*+.^_`|~0-9A-Za-z-]+)?$/

/**
 * The `typ` value as compared: lower case, without a leading `application/`
 * (RFC 7515 §4.1.9 recommends omitting it, and media types are compared
 * case-insensitively).
 */
export function normalTyp (typ: string): string {
  const lower = typ.toLowerCase()
  return lower.startsWith('application/') ? lower.slice(12) : lower
}

const MATCHED: ReadonlyArray<readonly [keyof ClaimPolicyOptions, string, string]> = [
  ['subject', 'sub', 'subject'],
  ['jwtId', 'jti', 'ID'],
  ['nonce', 'nonce', 'nonce']
]

/**
 * Compiles the policy options of a verifier; throws through `fail(option,
 * problem)` (the caller names `jwt.<name>.<option>`). Undefined when none is
 * set, so such a verifier pays nothing.
 * D-AUTH-48 (claim matchers), D-AUTH-49 (typ and requiredClaims).
 */
export function claimPolicy (options: ClaimPolicyOptions, fail: (option: string, problem: string) => never): ClaimPolicy | undefined {
  const checks: ClaimPolicy[] = []
  if (options.typ !== undefined) {
    const values: readonly unknown[] = Array.isArray(options.typ) ? options.typ : [options.typ]
    if (values.length === 0 || !values.every((v) => typeof v === 'string' && MEDIA_TYPE.test(v))) {
      fail('typ', 'must be a media type such as "at+jwt" (or "application/at+jwt"), or a non-empty list of them')
    }
    const accepted = new Set((values as string[]).map(normalTyp))
    checks.push((header) => typeof header.typ === 'string' && accepted.has(normalTyp(header.typ)) ? undefined : 'The token type is not accepted')
  }
  if (options.requiredClaims !== undefined) {
    const names: unknown = options.requiredClaims
    if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string' && CLAIM_NAME.test(n))) {
      fail('requiredClaims', 'must be a non-empty list of claim names of printable ASCII characters')
    }
    const required = [...new Set(names as string[])]
    checks.push((_header, claims) => {
      for (const name of required) {
        if (!Object.hasOwn(claims, name)) return `The token has no ${name} claim`
      }
      return undefined
    })
  }
  for (const [option, claim, words] of MATCHED) {
    const value = options[option]
    if (value === undefined) continue
    const matcher: ClaimMatcher = compileClaimPatterns(value, (problem) => fail(option, problem))
    // An absent claim is not accepted: a matcher is a requirement (fast-jwt skips it).
    checks.push((_header, claims) => matcher.test(claims[claim]) ? undefined : `The token ${words} is not accepted`)
  }
  if (checks.length === 0) return undefined
  return (header, claims) => {
    for (const check of checks) {
      const problem = check(header, claims)
      if (problem !== undefined) return problem
    }
    return undefined
  }
}
