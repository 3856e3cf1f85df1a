import type { FastifyInstance, RouteOptions } from 'fastify'
import { kAuthAccepts, type AuthAccepts } from '@fastify-gatehouse/core'
import type { AuthCore } from './auth-core.js'

/**
 * Leaves on every route declared after this component (in its instance
 * tree) what it accepts, for core's rule enforcer: the schemes named by the
 * 403 of an anonymous caller, the challenges of its 401 when
 * `challengeAnonymous` is on (the route's `config.challengeAnonymous`, else
 * `pluginDefault`). Core cannot import auth (DESIGN §1), so the value goes
 * under a registered symbol any copy of core reads (D-CORE-05).
 * D-RULES-11.
 */
export function announceAccepted (app: FastifyInstance, core: AuthCore, pluginDefault: boolean): void {
  const accepts: AuthAccepts = Object.freeze({ schemes: core.schemes, challenges: core.challenges, challengeAnonymous: pluginDefault })
  app.addHook('onRoute', function announceAuthSchemes (route: RouteOptions) {
    route.config = { ...(route.config as object | undefined), [kAuthAccepts]: accepts } as RouteOptions['config']
  })
}
