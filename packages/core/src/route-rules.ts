import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify'
import { compileAuthRule, AuthRuleSyntaxError } from './auth-rule.js'
import { GATEHOUSE_CORE_FORBIDDEN, GATEHOUSE_CORE_INVALID_AUTH_RULE } from './errors.js'
import { markRuleCompiled } from './rule-coverage.js'
import { processWide } from './shared-identity.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Who may call the route: a tag, or an expression over tags (`admin|ops`,
     * `admin & !suspended`). Anonymous callers and callers whose tags do not
     * satisfy it get 403. No rule: the route is open.
     */
    authRule?: string
  }
  interface RouteShorthandOptions {
    /**
     * Shorthand for `config.authRule`, enforced alike. Fastify keeps no trace
     * of it on a route declared before the chain: see `trackRouteRules`.
     */
    authRule?: string
  }
}

// Process-wide, like the symbol below: another copy of this package may have
// compiled the GET route a HEAD route is copied from (shared-identity.ts).
const enforcers = processWide('core.ruleEnforcers.v1', () => new WeakSet<onRequestHookHandler>())

/**
 * Marks a route config whose rule was compiled (a symbol: JSON and users
 * never see it; registered, so that every copy of this package reads it).
 */
export const kRuleEnforced = Symbol.for('fastify-gatehouse.core.ruleEnforced.v1')

/**
 * True when a route's config names a rule that no `onRoute` hook compiled
 * (e.g. another plugin's `onRoute` hook, added after the chain's, set it).
 * Such requests are refused (fail closed): the second line behind the boot
 * checks of rule-coverage.ts.
 */
export function unenforcedRule (config: unknown): boolean {
  const c = config as { authRule?: unknown, [kRuleEnforced]?: boolean } | undefined
  return c?.authRule !== undefined && c[kRuleEnforced] !== true
}

/**
 * Adds the `onRoute` hook that compiles each route's `authRule` once and
 * puts its check first among the route's own `onRequest` hooks: Fastify runs
 * those after every instance-level `onRequest` hook (auth, session), and
 * before the body is parsed.
 * D-RULES-01: enforced by core, so a rule holds even with auth off (403).
 */
export function enforceRouteRules (app: FastifyInstance): void {
  app.addHook('onRoute', function compileRouteRule (route) {
    const fromConfig = (route.config as { authRule?: unknown } | undefined)?.authRule
    const shorthand = (route as { authRule?: unknown }).authRule
    const rule = fromConfig ?? shorthand
    if (rule === undefined) return
    const where = `${String(route.method)} ${route.url}`
    if (fromConfig !== undefined && shorthand !== undefined && fromConfig !== shorthand) {
      throw new GATEHOUSE_CORE_INVALID_AUTH_RULE(`${JSON.stringify(fromConfig)} / ${JSON.stringify(shorthand)}`, where, 'config.authRule and authRule disagree')
    }
    if (typeof rule !== 'string') {
      throw new GATEHOUSE_CORE_INVALID_AUTH_RULE(JSON.stringify(rule), where, 'a rule must be a string')
    }
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
    // HEAD routes are copied from their GET route, hook included.
    if (existing.some((hook) => enforcers.has(hook as onRequestHookHandler))) {
      markRuleCompiled(route)
      return
    }
    let allows: ReturnType<typeof compileAuthRule>
    try {
      allows = compileAuthRule(rule)
    } catch (err) {
      if (!(err instanceof AuthRuleSyntaxError)) throw err
      throw new GATEHOUSE_CORE_INVALID_AUTH_RULE(JSON.stringify(rule), where, err.message)
    }
    const enforceAuthRule: onRequestHookHandler = function enforceAuthRule (request, _reply, done) {
      const caller = request.scope?.auth ?? null
      // D-RULES-02: an anonymous caller never satisfies a rule, even a purely negative one.
      if (caller === null || !allows(caller)) {
        done(new GATEHOUSE_CORE_FORBIDDEN())
        return
      }
      done()
    }
    enforcers.add(enforceAuthRule)
    route.onRequest = [enforceAuthRule, ...existing] as RouteOptions['onRequest']
    route.config = { ...(route.config as object | undefined), [kRuleEnforced]: true } as RouteOptions['config']
    markRuleCompiled(route)
  })
}
