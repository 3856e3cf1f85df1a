import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify'
import { compileAuthRule, AuthRuleSyntaxError } from './auth-rule.js'
import { markDefaultRule, scopeDefaultRule } from './default-auth-rule.js'
import { GATEHOUSE_CORE_INVALID_AUTH_RULE, GATEHOUSE_CORE_INVALID_FRESH, GATEHOUSE_CORE_INVALID_ROUTE_OPTION } from './errors.js'
import { freshProblem, isFresh, ReauthenticateError } from './fresh.js'
import { markRuleCompiled } from './rule-coverage.js'
import { ruleRefusal } from './rule-refusal.js'
import { processWide } from './shared-identity.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Who may call the route: a tag, or an expression over tags (`admin|ops`,
     * `admin & !suspended`). Anonymous callers and callers whose tags do not
     * satisfy it get 403. No rule: the route is open.
     */
    authRule?: string
    /**
     * How recent the caller's sign-in must be, in seconds (1 to one year):
     * a caller whose `authenticatedAt` is older, unknown (API keys) or absent
     * gets 401 `GATEHOUSE_CORE_REAUTHENTICATE`. Checked right after `authRule`.
     * D-RULES-09: a route option, not rule syntax.
     */
    fresh?: number
    /**
     * An anonymous caller the rule refuses gets 401 with the challenges of
     * the schemes the auth component accepts (`WWW-Authenticate: Basic
     * realm="…", charset="UTF-8"`), not 403. Default: the auth component's
     * `challengeAnonymous` (off). Needs an `authRule`.
     */
    challengeAnonymous?: boolean
  }
  interface RouteShorthandOptions {
    /**
     * Shorthand for `config.authRule`, enforced alike. Fastify keeps no trace
     * of it on a route declared before the chain: see `trackRouteRules`.
     */
    authRule?: string
    /** Shorthand for `config.fresh`, enforced alike. */
    fresh?: number
  }
}

// Process-wide, like the symbol below: another copy of this package may have
// compiled the GET route a HEAD route is copied from (shared-identity.ts).
const enforcers = processWide('core.ruleEnforcers.v1', () => new WeakSet<onRequestHookHandler>())
// The enforcers that check `fresh` too (a copy that predates it adds its
// enforcers to the set above only). D-ERRORS-13.
const freshEnforcers = processWide('core.freshEnforcers.v1', () => new WeakSet<onRequestHookHandler>())

/**
 * Marks a route config whose rule was compiled (a symbol: JSON and users
 * never see it; registered, so that every copy of this package reads it).
 */
export const kRuleEnforced = Symbol.for('fastify-gatehouse.core.ruleEnforced.v1')
/** Marks a route config whose `fresh` was compiled (like {@link kRuleEnforced}). */
export const kFreshEnforced = Symbol.for('fastify-gatehouse.core.freshEnforced.v1')

/**
 * What a route's config names that no `onRoute` hook compiled (`authRule`,
 * `fresh`, `authRule and fresh`), or `undefined` when nothing is left
 * unenforced; e.g. another plugin's `onRoute` hook, added after the chain's,
 * set it. Such requests are refused (fail closed): the second line behind
 * the boot checks of rule-coverage.ts.
 */
export function unenforcedRule (config: unknown): string | undefined {
  const c = config as { authRule?: unknown, fresh?: unknown, [kRuleEnforced]?: boolean, [kFreshEnforced]?: boolean } | undefined
  if (c === undefined || c === null) return undefined
  const rule = c.authRule !== undefined && c[kRuleEnforced] !== true
  const fresh = c.fresh !== undefined && c[kFreshEnforced] !== true
  return rule && fresh ? 'authRule and fresh' : rule ? 'authRule' : fresh ? 'fresh' : undefined
}

/** `value` as it reads in a boot error: JSON where it has one (`"600"`), else as JavaScript shows it (`NaN`, `1n`). */
function shown (value: unknown): string {
  return typeof value === 'number' || typeof value === 'bigint' ? String(value) : JSON.stringify(value) ?? String(value)
}

/** The route's option `name`, from `config` or the shorthand; throws `fail` when both are given and disagree. */
function routeOption (route: RouteOptions, name: 'authRule' | 'fresh', fail: (value: string) => Error): unknown {
  const fromConfig = (route.config as Record<string, unknown> | undefined)?.[name]
  const shorthand = (route as unknown as Record<string, unknown>)[name]
  if (fromConfig !== undefined && shorthand !== undefined && fromConfig !== shorthand) {
    throw fail(`${shown(fromConfig)} / ${shown(shorthand)}`)
  }
  // A null fresh is refused, not read as "none" (D-RULES-09); authRule keeps its older reading of null as absent.
  return name === 'fresh' && fromConfig !== undefined ? fromConfig : fromConfig ?? shorthand
}

/**
 * Adds the `onRoute` hook that compiles each route's `authRule` and `fresh`
 * once and puts their check first among the route's own `onRequest` hooks:
 * Fastify runs those after every instance-level `onRequest` hook (auth,
 * session), and before the body is parsed. The rule is checked first, so
 * a caller who may never call the route gets 403, not an invitation to sign in
 * (D-RULES-10).
 * D-RULES-01: enforced by core, so a rule holds even with auth off (403).
 */
export function enforceRouteRules (app: FastifyInstance): void {
  app.addHook('onRoute', function compileRouteRule (this: FastifyInstance, route) {
    const where = `${String(route.method)} ${route.url}`
    const own = routeOption(route, 'authRule', (both) => new GATEHOUSE_CORE_INVALID_AUTH_RULE(both, where, 'config.authRule and authRule disagree'))
    // D-RULES-13: a route without a rule of its own takes its scope's default
    // (setDefaultAuthRule), written into its config so the route says what it enforces.
    const fallback = own === undefined ? scopeDefaultRule(this) : undefined
    if (fallback !== undefined) {
      const config = { ...(route.config as object | undefined), authRule: fallback }
      markDefaultRule(config)
      route.config = config as RouteOptions['config']
    }
    const rule = own ?? fallback
    const fresh = routeOption(route, 'fresh', (both) => new GATEHOUSE_CORE_INVALID_FRESH(both, where, 'config.fresh and fresh disagree'))
    const challenge = (route.config as Record<string, unknown> | undefined)?.challengeAnonymous
    if (challenge !== undefined && (typeof challenge !== 'boolean' || rule === undefined)) {
      throw new GATEHOUSE_CORE_INVALID_ROUTE_OPTION('config.challengeAnonymous', where, typeof challenge !== 'boolean' ? 'must be true or false' : 'needs an authRule on the route (it changes how the rule refuses anonymous callers)')
    }
    if (rule === undefined && fresh === undefined) return
    if (rule !== undefined && typeof rule !== 'string') {
      throw new GATEHOUSE_CORE_INVALID_AUTH_RULE(shown(rule), where, 'a rule must be a string')
    }
    if (fresh !== undefined) {
      const problem = freshProblem(fresh)
      if (problem !== undefined) throw new GATEHOUSE_CORE_INVALID_FRESH(shown(fresh), where, problem)
    }
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
    // HEAD routes are copied from their GET route, hook included.
    const copied = existing.find((hook) => enforcers.has(hook as onRequestHookHandler)) as onRequestHookHandler | undefined
    if (copied !== undefined) {
      markRuleCompiled(route, { rule: rule !== undefined, fresh: fresh !== undefined && freshEnforcers.has(copied) })
      return
    }
    let allows: ReturnType<typeof compileAuthRule> | undefined
    if (rule !== undefined) {
      try {
        allows = compileAuthRule(rule)
      } catch (err) {
        if (!(err instanceof AuthRuleSyntaxError)) throw err
        throw new GATEHOUSE_CORE_INVALID_AUTH_RULE(JSON.stringify(rule), where, err.message)
      }
    }
    const maxAge = fresh as number | undefined
    const enforceAuthRule: onRequestHookHandler = function enforceAuthRule (request, _reply, done) {
      const refused = allows === undefined ? undefined : ruleRefusal(allows, request)
      if (refused !== undefined) {
        done(refused)
        return
      }
      if (maxAge !== undefined && !isFresh(request.scope?.auth ?? null, maxAge, Date.now())) {
        done(new ReauthenticateError(maxAge))
        return
      }
      done()
    }
    enforcers.add(enforceAuthRule)
    freshEnforcers.add(enforceAuthRule)
    route.onRequest = [enforceAuthRule, ...existing] as RouteOptions['onRequest']
    const marks = { ...(rule === undefined ? {} : { [kRuleEnforced]: true }), ...(fresh === undefined ? {} : { [kFreshEnforced]: true }) }
    route.config = { ...(route.config as object | undefined), ...marks } as RouteOptions['config']
    markRuleCompiled(route, { rule: rule !== undefined, fresh: fresh !== undefined })
  })
}

/**
 * Whether a route's config carries a compiled `authRule` or `fresh` (either
 * spelling): a route that needs a caller. `false` for an open route, and for
 * the 404 handler. For components that treat a failed optional credential
 * differently on open routes (auth's expired cookie token).
 */
export function routeNeedsCaller (config: unknown): boolean {
  const c = config as { [kRuleEnforced]?: boolean, [kFreshEnforced]?: boolean } | undefined
  return c?.[kRuleEnforced] === true || c?.[kFreshEnforced] === true
}
