import type { FastifyInstance, FastifyPluginCallback, onRequestHookHandler, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { compileAuthRule, AuthRuleSyntaxError, ruleRefusal, type AuthRule } from './auth-rule.js'
import { scopeDefaultRule } from './default-auth-rule.js'
import { GATEHOUSE_CORE_INVALID_AUTH_RULE, GATEHOUSE_CORE_INVALID_FRESH, GATEHOUSE_CORE_INVALID_ROUTE_OPTION } from './errors.js'
import type { AnyFastifyInstance } from './fastify-instance.js'
import { freshProblem, isFresh, ReauthenticateError } from './fresh.js'
import { declaredChallenges } from './route-challenges.js'
import { routeRecord, withRouteRecord, type RouteRecord } from './route-record.js'
import { startRouteTable } from './route-table.js'

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

function compile (rule: string, where: string): AuthRule {
  try {
    return compileAuthRule(rule)
  } catch (err) {
    if (!(err instanceof AuthRuleSyntaxError)) throw err
    throw new GATEHOUSE_CORE_INVALID_AUTH_RULE(JSON.stringify(rule), where, err.message)
  }
}

/** The hook that enforces a rule (when `allows` is given) and then a freshness (when `maxAge` is); `refusal` says how an anonymous caller is refused. */
function enforcer (allows: AuthRule | undefined, maxAge: number | undefined, refusal: Pick<RouteRecord, 'accepts' | 'challengeAnonymous'>): onRequestHookHandler {
  return function enforceAuthRule (request, _reply, done) {
    const refused = allows === undefined ? undefined : ruleRefusal(allows, refusal, request)
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
}

/**
 * The `onRoute` hook that makes each route's record once: its rule (its
 * own, else its scope's default, D-RULES-13), its `fresh`, what the
 * authentication component of its scope accepts, and the check, put first
 * among the route's own `onRequest` hooks: Fastify runs those after every
 * instance-level `onRequest` hook (auth, session), and before the body is
 * parsed. The rule is checked first, so a caller who may never call the
 * route gets 403, not an invitation to sign in (D-RULES-10).
 * D-RULES-01: enforced by core, so a rule holds even with auth off (403).
 */
function compileRouteRule (this: FastifyInstance, route: RouteOptions): void {
  const where = `${String(route.method)} ${route.url}`
  const own = routeOption(route, 'authRule', (both) => new GATEHOUSE_CORE_INVALID_AUTH_RULE(both, where, 'config.authRule and authRule disagree'))
  const fallback = own === undefined ? scopeDefaultRule(this) : undefined
  // D-RULES-13: the default is written into the route's config, so the route says what it enforces.
  if (fallback !== undefined) route.config = { ...(route.config as object | undefined), authRule: fallback } as RouteOptions['config']
  const rule = own ?? fallback
  const fresh = routeOption(route, 'fresh', (both) => new GATEHOUSE_CORE_INVALID_FRESH(both, where, 'config.fresh and fresh disagree'))
  const challenge = (route.config as Record<string, unknown> | undefined)?.challengeAnonymous
  if (challenge !== undefined && (typeof challenge !== 'boolean' || rule === undefined)) {
    throw new GATEHOUSE_CORE_INVALID_ROUTE_OPTION('config.challengeAnonymous', where, typeof challenge !== 'boolean' ? 'must be true or false' : 'needs an authRule on the route (it changes how the rule refuses anonymous callers)')
  }
  if (rule !== undefined && typeof rule !== 'string') throw new GATEHOUSE_CORE_INVALID_AUTH_RULE(shown(rule), where, 'a rule must be a string')
  if (fresh !== undefined) {
    const problem = freshProblem(fresh)
    if (problem !== undefined) throw new GATEHOUSE_CORE_INVALID_FRESH(shown(fresh), where, problem)
  }
  const allows = rule === undefined ? undefined : compile(rule, where)
  const maxAge = fresh as number | undefined
  const accepts = declaredChallenges(this)
  const refusal = { accepts, challengeAnonymous: typeof challenge === 'boolean' ? challenge : accepts?.challengeAnonymous === true }
  const check = rule === undefined && maxAge === undefined ? undefined : enforcer(allows, maxAge, refusal)
  const record: RouteRecord = Object.freeze({ rule, fromDefault: fallback !== undefined, fresh: maxAge, check, ...refusal })
  // A route's options copied from another route (the HEAD route of a GET,
  // a reused options object) may carry that route's check: replaced, not doubled.
  const copied = routeRecord(route.config)?.check
  const existing = (route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest])
    .filter((hook) => copied === undefined || hook !== copied)
  if (check !== undefined) route.onRequest = [check, ...existing] as RouteOptions['onRequest']
  else if (copied !== undefined) route.onRequest = existing as RouteOptions['onRequest']
  route.config = withRouteRecord(route, record)
}

const routeRulesPlugin: FastifyPluginCallback = function routeRules (app, _opts, done) {
  startRouteTable(app, 'the Gatehouse chain')
  app.addHook('onRoute', compileRouteRule)
  done()
}

/** The route-rules plugin: `app.register(routeRules)` alone is {@link ensureRouteRules} without its once-per-tree guard. */
const plugin = fp(routeRulesPlugin, { name: '@fastify-gatehouse/route-rules', fastify: '5.x' })

/**
 * Makes sure route rules are enforced on the routes declared on `app` from
 * now on, once per instance tree: registers the route-rules plugin, which
 * compiles each route's `authRule`, `fresh` and `challengeAnonymous` (either
 * spelling) into one record, enforces it with a route-level `onRequest`
 * hook, and checks at `ready()` that no route carries a rule that record
 * does not enforce (declared before the plugin, outside its instance tree,
 * or set after its `onRoute` hook ran: `GATEHOUSE_CORE_UNENFORCED_AUTH_RULE`
 * or `GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN`, naming the routes). After
 * `ready()`, `routeRules(app)` lists every route with its rule.
 * `middlewareChain` and every component call it, after `ensureScope`.
 * D-RULES-15.
 */
export async function ensureRouteRules (app: AnyFastifyInstance): Promise<void> {
  const instance = app as FastifyInstance
  if (instance.hasPlugin('@fastify-gatehouse/route-rules')) return
  await instance.register(plugin)
}
