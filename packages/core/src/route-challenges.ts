import type { AnyFastifyInstance } from './fastify-instance.js'

/** What an authentication component accepts on the routes of its scope: {@link declareRouteChallenges}. */
export interface AuthAccepts {
  /** Scheme names as written in the challenges (`Basic`, `Bearer`). */
  readonly schemes: readonly string[]
  /** `WWW-Authenticate` challenges, one per scheme. */
  readonly challenges: readonly string[]
  /** The component's `challengeAnonymous`: the default of the routes of its scope. */
  readonly challengeAnonymous: boolean
}

// On the Fastify instance the component is registered on (an encapsulated
// instance inherits from its parent, so the routes of the plugins inside it
// see it too), under a registered symbol: auth and the route-rules plugin
// may be of two copies of core (D-CORE-05). One value per scope, not a key
// on every route config (D-RULES-17).
const kRouteChallenges = Symbol.for('fastify-gatehouse.core.routeChallenges.v1')

/**
 * Declares what the authentication component registered on `scope` accepts,
 * for the refusal the route-rules plugin sends an anonymous caller on the
 * routes declared from now on in that scope: the schemes its 403 names
 * (`Sign in with Basic or Bearer credentials`) and the challenges of its
 * 401 when `challengeAnonymous` is on (the route's
 * `config.challengeAnonymous`, else `accepts.challengeAnonymous`). Core
 * cannot import auth (DESIGN §1), so auth calls this at registration. A
 * later declaration on the same scope replaces the earlier one.
 * D-RULES-11, D-RULES-17.
 */
export function declareRouteChallenges (scope: AnyFastifyInstance, accepts: AuthAccepts): void {
  const value: AuthAccepts = Object.freeze({ schemes: [...accepts.schemes], challenges: [...accepts.challenges], challengeAnonymous: accepts.challengeAnonymous === true })
  Object.defineProperty(scope, kRouteChallenges, { value, enumerable: false, configurable: true, writable: false })
}

/** What the authentication component of `instance`'s scope accepts, or `undefined` (none, or one that accepts no scheme). */
export function declaredChallenges (instance: object): AuthAccepts | undefined {
  const value = (instance as Record<symbol, Partial<AuthAccepts> | undefined>)[kRouteChallenges]
  if (value === undefined || !Array.isArray(value.schemes) || !Array.isArray(value.challenges) || value.schemes.length === 0) return undefined
  return value as AuthAccepts
}
