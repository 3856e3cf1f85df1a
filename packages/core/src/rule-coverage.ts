import type { FastifyInstance, RouteOptions } from 'fastify'
import { GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN, GATEHOUSE_CORE_UNENFORCED_AUTH_RULE } from './errors.js'
import type { AnyFastifyInstance } from './scope.js'
import { processWide } from './shared-identity.js'

// D-RULES-07 and D-RULES-08: why these checks, and what they cannot see.
// Boot-time proof that every route rule is enforced. Fastify's `onRoute`
// hooks never see routes declared before them, and Fastify keeps nothing of
// a route's options but `config` (and shows even that only to a request, as
// `request.routeOptions.config`; printRoutes' metadata leaves it out). So:
// - trackRouteRules, installed before the first route, sees every route and
//   its rule in either spelling, and ready() fails for a rule that no chain
//   compiled (AppServer installs it);
// - otherwise, installing the chain on an instance that already has routes
//   makes ready() fail, as those routes' rules cannot be known.

// The route options objects whose rule an `enforceRouteRules` hook compiled.
// Fastify hands every `onRoute` hook of a route the same object.
// Process-wide: the chain and trackRouteRules may come from two copies of
// this package (shared-identity.ts).
const compiled = processWide('core.compiledRouteRules.v1', () => new WeakSet<object>())
// Those whose `fresh` it compiled: a set of its own, as a copy that predates
// `fresh` marks the rule of a route in the set above and ignores its `fresh`.
const compiledFresh = processWide('core.compiledRouteFresh.v1', () => new WeakSet<object>())
// Fastify roots (keyed by their HTTP server) tracked from their first route.
const tracked = processWide('core.trackedRoots.v1', () => new WeakSet<object>())
// The routes declared on an instance tree (keyed by its HTTP server) since
// trackRouteRules or the chain's install, whichever came first, until ready.
const recorded = processWide('core.declaredRoutes.v1', () => new WeakMap<object, DeclaredRoute[]>())

/** A route as declared: its options, and the instance it was declared on. */
export interface DeclaredRoute {
  /** The object every `onRoute` hook of the route is handed. */
  readonly options: RouteOptions
  /** The (encapsulated) instance the route was declared on. */
  readonly instance: FastifyInstance
}

/**
 * Records the options of every route declared on `app` (and below it) from
 * now until `ready()`, for `declaredRoutes`. Once per HTTP server.
 */
export function recordRoutes (app: FastifyInstance): void {
  if (recorded.has(app.server)) return
  const routes: DeclaredRoute[] = []
  recorded.set(app.server, routes)
  app.addHook('onRoute', function recordRoute (this: FastifyInstance, route) { routes.push({ options: route, instance: this }) })
  // Nothing is declared after ready: the list is let go.
  app.addHook('onReady', async function forgetRoutes () { routes.length = 0 })
}

/**
 * The routes declared so far on `app`'s server (its options, and the
 * instance it was declared on) since `trackRouteRules` or the Gatehouse
 * chain was installed, in order; empty after `ready()`. A component
 * registered late reads it to learn of the routes its own `onRoute` hook
 * never saw (cors: D-CORS-11).
 */
export function declaredRoutes (instance: AnyFastifyInstance): readonly DeclaredRoute[] {
  return recorded.get((instance as FastifyInstance).server) ?? []
}

/** Records what of `route` is enforced (called by the compiling `onRoute` hook). */
export function markRuleCompiled (route: object, parts: { rule: boolean, fresh: boolean }): void {
  if (parts.rule) compiled.add(route)
  if (parts.fresh) compiledFresh.add(route)
}

/** The rule a route declares, `config.authRule` or the `authRule` shorthand. */
export function declaredRule (route: RouteOptions): unknown {
  return (route.config as { authRule?: unknown } | undefined)?.authRule ?? (route as { authRule?: unknown }).authRule
}

/** The freshness a route declares, `config.fresh` or the `fresh` shorthand. */
export function declaredFresh (route: RouteOptions): unknown {
  const fromConfig = (route.config as { fresh?: unknown } | undefined)?.fresh
  return fromConfig !== undefined ? fromConfig : (route as { fresh?: unknown }).fresh
}

/** The options of the route that it declares and no chain compiled: `authRule`, `fresh`, both or none. */
function unenforcedParts (route: RouteOptions): string[] {
  const parts: string[] = []
  if (declaredRule(route) !== undefined && !compiled.has(route)) parts.push('authRule')
  if (declaredFresh(route) !== undefined && !compiledFresh.has(route)) parts.push('fresh')
  return parts
}

function routeName (route: RouteOptions): string {
  return `${Array.isArray(route.method) ? route.method.join(',') : String(route.method)} ${route.url}`
}

// A route line of printRoutes ends in its methods: `/orders (GET, HEAD)`.
const METHODS = /\([A-Z-]+(?:, [A-Z-]+)*\)/
const SHOWN_LINES = 40

/** Fastify's printRoutes tree (whole paths) of every route of the root, or '' when there is none. */
function existingRoutes (app: FastifyInstance): string {
  const tree = app.printRoutes({ commonPrefix: false })
  if (!METHODS.test(tree)) return ''
  const lines = tree.trimEnd().split('\n')
  return lines.length <= SHOWN_LINES ? lines.join('\n') : [...lines.slice(0, SHOWN_LINES), `… ${lines.length - SHOWN_LINES} more lines`].join('\n')
}

/**
 * Watches every route declared on `app` from now on: `ready()` then rejects
 * with `GATEHOUSE_CORE_UNENFORCED_AUTH_RULE`, naming the routes, when a
 * route carries an `authRule` or a `fresh` option (either spelling) that no
 * Gatehouse chain compiled — declared before the chain, or outside its instance tree.
 * Call it on the root instance right after creating it, before any route
 * (`AppServer` does); with it, routes without a rule may come before the
 * chain. Throws `GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN` when routes exist already.
 */
export function trackRouteRules (instance: AnyFastifyInstance): void {
  const app = instance as FastifyInstance
  if (tracked.has(app.server)) return
  const early = existingRoutes(app)
  if (early !== '') throw new GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN('trackRouteRules', early)
  tracked.add(app.server)
  recordRoutes(app)
  let declared: RouteOptions[] = []
  app.addHook('onRoute', function trackRouteRule (route) {
    if (declaredRule(route) !== undefined || declaredFresh(route) !== undefined) declared.push(route)
  })
  app.addHook('onReady', async function refuseUnenforcedRules () {
    const options = new Set<string>()
    const unenforced = new Set<string>()
    for (const route of declared) {
      const parts = unenforcedParts(route)
      if (parts.length === 0) continue
      for (const part of parts) options.add(part)
      unenforced.add(routeName(route))
    }
    declared = []
    if (unenforced.size > 0) throw new GATEHOUSE_CORE_UNENFORCED_AUTH_RULE(['authRule', 'fresh'].filter((o) => options.has(o)).join(' and '), [...unenforced].join(', '))
  })
}

/**
 * Called as the chain is installed on `app`: unless the root is tracked,
 * routes that exist already (declared before the chain, whose rules no
 * `onRoute` hook can see) make `ready()` reject with
 * `GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN`, printing them.
 */
export function refuseRoutesBeforeChain (app: FastifyInstance): void {
  if (tracked.has(app.server)) return
  const early = existingRoutes(app)
  if (early === '') return
  app.addHook('onReady', async function refuseRoutesBeforeChain () {
    throw new GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN('the Gatehouse chain', early)
  })
}
