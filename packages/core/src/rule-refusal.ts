import type { FastifyRequest } from 'fastify'
import { anonymousRefusal } from './anonymous-refusal.js'
import type { AuthRule } from './auth-rule.js'
import { GATEHOUSE_CORE_FORBIDDEN } from './errors.js'

/**
 * Why `request`'s caller fails the compiled rule `allows`, or `undefined`
 * when it passes: anonymous, the refusal auth's options call for (401 with
 * a challenge, or a sign-in); signed in, 403 `GATEHOUSE_CORE_FORBIDDEN`.
 * D-RULES-02: an anonymous caller never satisfies a rule, even a purely negative one.
 */
export function ruleRefusal (allows: AuthRule, request: FastifyRequest): Error | undefined {
  const caller = request.scope?.auth ?? null
  if (caller !== null && allows(caller)) return undefined
  // What auth accepts is read from the config only on this path (D-RULES-11).
  return caller === null ? anonymousRefusal(request.routeOptions.config, request.headers.authorization) : new GATEHOUSE_CORE_FORBIDDEN()
}
