import { GATEHOUSE_CORE_FORBIDDEN, GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED, UNAUTHENTICATED } from './errors.js'
import { HttpError } from './http-error.js'
import { isToken } from './http-syntax.js'

/**
 * What the auth component accepts, left on each route config it sees under
 * this registered symbol (any copy of core reads it, D-CORE-05): core cannot
 * import auth (DESIGN §1), and a route outside auth's instance tree, or an
 * app without auth, has none.
 */
export const kAuthAccepts = Symbol.for('fastify-gatehouse.core.authAccepts.v1')

/** The value under {@link kAuthAccepts}. */
export interface AuthAccepts {
  /** Scheme names as written in the challenges (`Basic`, `Bearer`). */
  readonly schemes: readonly string[]
  /** `WWW-Authenticate` challenges, one per scheme. */
  readonly challenges: readonly string[]
  /** The auth component's `challengeAnonymous`: the default of the routes it sees. */
  readonly challengeAnonymous: boolean
}

function acceptsOf (config: object): AuthAccepts | undefined {
  const value = (config as Record<PropertyKey, unknown>)[kAuthAccepts] as Partial<AuthAccepts> | undefined
  if (value === undefined || !Array.isArray(value.schemes) || !Array.isArray(value.challenges) || value.schemes.length === 0) return undefined
  return value as AuthAccepts
}

/** `Basic`, `Basic or Bearer`, `Basic, Bearer or Token`. */
function orList (names: readonly string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}`
}

/** `Sign in with Basic or Bearer credentials`: what a refusal tells an anonymous caller (schemes as challenges write them; at least one). */
export function signInWith (schemes: readonly string[]): string {
  return `Sign in with ${orList(schemes)} credentials`
}

// Longest scheme name echoed in a message: the registered ones are at most
// 13 characters (`Negotiate`, `SCRAM-SHA-256`); longer ones are not named.
const MAX_SCHEME_SHOWN = 20

/**
 * The scheme of an `Authorization` value as sent (`Basic`), to name in a
 * message: only when credentials follow it after a space and it is a token
 * of at most 20 characters; else `undefined`. A value without a space is a
 * bare credential (a token sent without its scheme), never a scheme name.
 * D-AUTH-79: a credential sent without a scheme is never echoed or logged.
 */
export function shownScheme (authorization: string): string | undefined {
  const trimmed = authorization.trim()
  const space = trimmed.indexOf(' ')
  if (space === -1) return undefined
  const scheme = trimmed.slice(0, space)
  return scheme.length <= MAX_SCHEME_SHOWN && isToken(scheme) ? scheme : undefined
}

/**
 * The refusal of an anonymous caller by a route rule. Without auth on the
 * route: 403 `GATEHOUSE_CORE_FORBIDDEN` as always, or, when the request
 * carried an `Authorization` header (which nothing read), 403
 * `GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED` saying so. With auth: its message
 * names the schemes (`Sign in with Basic or Bearer credentials`), and with
 * `challengeAnonymous` (the route's, else auth's) it is a 401
 * `GATEHOUSE_CORE_UNAUTHENTICATED` carrying auth's challenges.
 * D-RULES-11, D-AUTH-73.
 */
export function anonymousRefusal (config: unknown, authorization?: string): Error {
  const accepts = typeof config === 'object' && config !== null ? acceptsOf(config) : undefined
  if (accepts === undefined) {
    if (authorization === undefined) return new GATEHOUSE_CORE_FORBIDDEN()
    // D-AUTH-73: a 403, as DESIGN §5 wants without auth; a 401 would need a challenge for a scheme the route accepts, and there is none.
    const scheme = shownScheme(authorization)
    return new GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED(`${scheme === undefined ? 'The Authorization header' : `The ${scheme} scheme`} is not accepted here: this route reads no Authorization header; sign in for a session cookie instead`)
  }
  const message = signInWith(accepts.schemes)
  const own = (config as { challengeAnonymous?: unknown }).challengeAnonymous
  const challenge = typeof own === 'boolean' ? own : accepts.challengeAnonymous === true
  if (challenge && accepts.challenges.length > 0) {
    return new HttpError(401, message, { code: UNAUTHENTICATED, headers: { 'www-authenticate': accepts.challenges.length === 1 ? accepts.challenges[0]! : [...accepts.challenges] } })
  }
  return new HttpError(403, message, { code: 'GATEHOUSE_CORE_FORBIDDEN' })
}
