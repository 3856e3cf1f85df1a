import type { FastifyRequest } from 'fastify'
import { anonymousRefusal, forbidden } from './anonymous-refusal.js'
import type { AuthRule } from './auth-rule.js'
import type { RouteRecord } from './route-record.js'

/**
 * Why `request`'s caller fails the compiled rule `allows`, or `undefined`
 * when it passes: anonymous, the refusal the route's record calls for (401
 * with a challenge, or a sign-in; `record` is `undefined` for a scope's 404
 * handler, which is no route); signed in, 403 `GATEHOUSE_CORE_FORBIDDEN`.
 * D-RULES-02: an anonymous caller never satisfies a rule, even a purely negative one.
 */
export function ruleRefusal (allows: AuthRule, record: Pick<RouteRecord, 'accepts' | 'challengeAnonymous'> | undefined, request: FastifyRequest): Error | undefined {
  const caller = request.scope?.auth ?? null
  if (caller !== null && allows(caller)) return undefined
  return caller === null ? anonymousRefusal(record, request.headers.authorization) : forbidden()
}
