import { GATEHOUSE_CORE_FORBIDDEN, UNAUTHENTICATED } from './errors.js'
import { HttpError } from './http-error.js'

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

/**
 * The refusal of an anonymous caller by a route rule. Without auth on the
 * route: 403 `GATEHOUSE_CORE_FORBIDDEN` as always. With auth: its message
 * names the schemes (`Sign in with Basic or Bearer credentials`), and with
 * `challengeAnonymous` (the route's, else auth's) it is a 401
 * `GATEHOUSE_CORE_UNAUTHENTICATED` carrying auth's challenges.
 * D-RULES-11.
 */
export function anonymousRefusal (config: unknown): Error {
  const accepts = typeof config === 'object' && config !== null ? acceptsOf(config) : undefined
  if (accepts === undefined) return new GATEHOUSE_CORE_FORBIDDEN()
  const message = `Sign in with ${orList(accepts.schemes)} credentials`
  const own = (config as { challengeAnonymous?: unknown }).challengeAnonymous
  const challenge = typeof own === 'boolean' ? own : accepts.challengeAnonymous === true
  if (challenge && accepts.challenges.length > 0) {
    return new HttpError(401, message, { code: UNAUTHENTICATED, headers: { 'www-authenticate': accepts.challenges.length === 1 ? accepts.challenges[0]! : [...accepts.challenges] } })
  }
  return new HttpError(403, message, { code: 'GATEHOUSE_CORE_FORBIDDEN' })
}
