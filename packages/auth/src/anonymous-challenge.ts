import type { FastifyInstance } from 'fastify'
import { declareRouteChallenges } from '@fastify-gatehouse/core'
import type { AuthCore } from './auth-core.js'

/**
 * Declares to the route-rules plugin what this component accepts on the
 * routes of its scope: the schemes named by the 403 of an anonymous caller,
 * the challenges of its 401 when `challengeAnonymous` is on (the route's
 * `config.challengeAnonymous`, else `pluginDefault`). Core cannot import
 * auth (DESIGN §1), so auth declares them through core's function.
 * D-RULES-11, D-RULES-17.
 */
export function announceAccepted (app: FastifyInstance, core: AuthCore, pluginDefault: boolean): void {
  declareRouteChallenges(app, { schemes: core.schemes, challenges: core.challenges, challengeAnonymous: pluginDefault })
}
