import { MAX_SESSION_CLAIMS_BYTES } from '@fastify-gatehouse/session'

// Claims that bind the id_token to this one exchange (OIDC Core 3.1.3.6,
// 3.3.2.11, FAPI's s_hash): checked by openid-client, meaningless after it,
// and nothing about the user.
const PROTOCOL_ONLY = new Set(['nonce', 'at_hash', 'c_hash', 's_hash'])

/**
 * What a session keeps when all the claims do not fit: the id_token's own
 * claims (OIDC Core 2) and the standard claims (OIDC Core 5.1), beside the
 * provider's `identityClaim`.
 */
export const STANDARD_CLAIMS: ReadonlySet<string> = new Set([
  'iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'acr', 'amr', 'azp', 'sid',
  'name', 'given_name', 'family_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture', 'website',
  'email', 'email_verified', 'gender', 'birthdate', 'zoneinfo', 'locale', 'phone_number', 'phone_number_verified', 'address', 'updated_at'
])

/** What {@link sessionClaims} decided. */
export type KeptClaims =
  /** `bytes`: the size of all the claims as JSON, before any were dropped. */
  | { readonly kept: Record<string, unknown>, readonly dropped: readonly string[], readonly bytes: number }
  /** The size of the standard claims alone, as JSON. */
  | { readonly tooLarge: number }

const size = (claims: Record<string, unknown>): number => Buffer.byteLength(JSON.stringify(claims))

/**
 * The claims an OIDC session keeps: the verified id_token's, over the
 * userinfo answer's when the callback asked for one (its `sub` is checked
 * against the id_token's), without the protocol-only ones. Over
 * `MAX_SESSION_CLAIMS_BYTES` as JSON: only the standard ones and the
 * identity claim (`dropped` names the rest); still over: `tooLarge`, and
 * the sign-in is refused.
 * D-OIDC-13.
 */
export function sessionClaims (idToken: Record<string, unknown>, userinfo: Record<string, unknown> | undefined, identityClaim: string): KeptClaims {
  const all: Record<string, unknown> = {}
  // defineProperty: a "__proto__" claim stays a claim, never a prototype.
  for (const [name, value] of [...Object.entries(userinfo ?? {}), ...Object.entries(idToken)]) {
    if (!PROTOCOL_ONLY.has(name) && value !== undefined) Object.defineProperty(all, name, { value, enumerable: true, writable: true, configurable: true })
  }
  const bytes = size(all)
  if (bytes <= MAX_SESSION_CLAIMS_BYTES) return { kept: all, dropped: [], bytes }
  const kept: Record<string, unknown> = {}
  const dropped: string[] = []
  for (const [name, value] of Object.entries(all)) {
    if (STANDARD_CLAIMS.has(name) || name === identityClaim) Object.defineProperty(kept, name, { value, enumerable: true, writable: true, configurable: true })
    else dropped.push(name)
  }
  const standard = size(kept)
  return standard <= MAX_SESSION_CLAIMS_BYTES ? { kept, dropped, bytes } : { tooLarge: standard }
}
