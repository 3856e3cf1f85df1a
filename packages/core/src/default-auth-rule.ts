import type { FastifyInstance } from 'fastify'
import { AuthRuleSyntaxError, compileAuthRule, ruleRefusal, type AuthRule } from './auth-rule.js'
import { GATEHOUSE_CORE_INVALID_AUTH_RULE, GATEHOUSE_CORE_UNENFORCED_AUTH_RULE } from './errors.js'
import type { AnyFastifyInstance } from './fastify-instance.js'
import { declaredRule, routeName, routeRecord } from './route-record.js'
import { declaredRoutes } from './route-table.js'

// D-RULES-13: a scope's default rule. Kept on the instance under a
// registered symbol (any copy of core reads it, D-CORE-05): an encapsulated
// plugin's instance inherits from its parent's, so the plugins registered
// inside the scope see it too, and no other scope does.
const kDefaultAuthRule = Symbol.for('fastify-gatehouse.core.defaultAuthRule.v1')

// Why a scope's default cannot be enforced on a route of the scope.
const NO_CHAIN_ABOVE = 'the route was declared before the Gatehouse chain or outside its instance tree; declare routes after middlewareChain'

/**
 * The default rule of the scope a route is declared in, or `undefined`
 * (for the route-rule compiler: a route without a rule of its own gets it).
 */
export function scopeDefaultRule (instance: object): string | undefined {
  return (instance as Record<symbol, string | undefined>)[kDefaultAuthRule]
}

/**
 * Gives every route declared from now on in `scope` (an encapsulated
 * plugin's instance, and the plugins registered inside it) the rule `rule`
 * when it has none of its own: `setDefaultAuthRule(scope, '*')` asks for a
 * signed-in caller on every route of the scope, as @fastify/jwt's
 * `onRequest: jwtVerify` hook or @fastify/bearer-auth's plugin do. A route's
 * own `authRule` wins. Routes outside the scope are untouched. The scope's
 * own not-found handler answers only callers the rule admits (D-RULES-14).
 *
 * Call it first in the plugin, after the Gatehouse chain is installed above
 * it. Throws `GATEHOUSE_CORE_INVALID_AUTH_RULE` for a malformed rule, a
 * second default on the same scope, or routes already declared in the
 * scope; a route of the scope that no chain can enforce the rule on fails
 * its declaration with `GATEHOUSE_CORE_UNENFORCED_AUTH_RULE` (never an open
 * route).
 */
export function setDefaultAuthRule (scope: AnyFastifyInstance, rule: string): void {
  const instance = scope as FastifyInstance
  const where = `the scope ${JSON.stringify(instance.prefix === '' ? '/' : instance.prefix)}`
  let allows: AuthRule
  try {
    allows = compileAuthRule(rule)
  } catch (err) {
    if (!(err instanceof AuthRuleSyntaxError)) throw err
    throw new GATEHOUSE_CORE_INVALID_AUTH_RULE(JSON.stringify(rule), where, err.message)
  }
  if (Object.prototype.hasOwnProperty.call(instance, kDefaultAuthRule)) {
    throw new GATEHOUSE_CORE_INVALID_AUTH_RULE(JSON.stringify(rule), where, `it has a default rule already (${JSON.stringify(scopeDefaultRule(instance))})`)
  }
  // Routes declared before would stay open without a word: refused, named.
  const before = declaredRoutes(instance).filter((r) => r.instance === instance || Object.prototype.isPrototypeOf.call(instance, r.instance))
  if (before.length > 0) {
    throw new GATEHOUSE_CORE_INVALID_AUTH_RULE(JSON.stringify(rule), where, `set the default before declaring routes; already declared: ${before.map((r) => routeName(r.options)).join(', ')}`)
  }
  Object.defineProperty(instance, kDefaultAuthRule, { value: rule, enumerable: false })
  // Added on the scope, this hook runs after the chain's compiling hook (an
  // ancestor's): a route that got the default but no enforcer (no chain
  // above the scope) is refused at its declaration.
  // A route with a rule of its own and no record is left to the route
  // table's check at ready() (D-RULES-16).
  instance.addHook('onRoute', function checkDefaultRuleEnforced (route) {
    if (routeRecord(route.config) !== undefined || declaredRule(route) !== undefined) return
    throw new GATEHOUSE_CORE_UNENFORCED_AUTH_RULE(`The default authRule ${JSON.stringify(rule)} of ${where}`, routeName(route), NO_CHAIN_ABOVE)
  })
  // D-RULES-14: the scope's own 404 handler (setNotFoundHandler inside it)
  // is no route, so no rule is compiled onto it; this hook of the scope runs
  // for it after the chain's hooks (auth, session: an ancestor's, so earlier)
  // and refuses as the rule would, as a peer's scope-wide onRequest hook does.
  // A 404 the scope does not handle (the parent's handler) never runs it.
  instance.addHook('onRequest', function enforceDefaultRuleOn404 (request, _reply, done) {
    done(request.is404 ? ruleRefusal(allows, undefined, request) : undefined)
  })
}
