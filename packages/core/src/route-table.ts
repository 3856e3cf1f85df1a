import type { FastifyInstance, RouteOptions } from 'fastify'
import { GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN, GATEHOUSE_CORE_UNENFORCED_AUTH_RULE } from './errors.js'
import type { AnyFastifyInstance } from './fastify-instance.js'
import { processWide } from './process-wide.js'
import { declaredFresh, declaredRule, routeName, routeRecord } from './route-record.js'

// D-RULES-16: the one table of a server's routes and the one boot check.
// Fastify's `onRoute` hooks never see routes declared before them, and
// Fastify keeps nothing of a route's options but `config` (shown only to a
// request). So the table records, from the moment it starts, every route
// and the record the route-rules plugin compiled for it; at ready() one
// check refuses what no record enforces:
// - routes that existed when the table started (their rules were never seen);
// - a rule or `fresh` (either spelling) with no record: the route was declared
//   before the chain, or outside its instance tree;
// - a rule or `fresh` that differs from its record: set by an `onRoute`
//   hook that ran after the plugin's (a late rule).
// It starts with the route-rules plugin, or earlier with trackRouteRules
// (AppServer), which lets open routes come before the chain.

/** A route as declared: its options, and the instance it was declared on. */
export interface DeclaredRoute {
  /** The object every `onRoute` hook of the route is handed. */
  readonly options: RouteOptions
  /** The (encapsulated) instance the route was declared on. */
  readonly instance: FastifyInstance
}

/** One route of {@link routeRules}: what it enforces. */
export interface RouteRuleEntry {
  /** The method (a route declared with several has one entry each). */
  readonly method: string
  /** The URL, prefix included, as Fastify matches it. */
  readonly url: string
  /** The route's constraints (`version`, `host`, …), when it has any. */
  readonly constraints?: Readonly<Record<string, unknown>>
  /** The rule the route enforces, or `'public'` when it has none. */
  readonly rule: string
  /** The sign-in freshness it asks for, in seconds, when it has one. */
  readonly fresh?: number
  /** Whether an anonymous caller the rule refuses gets 401 with challenges rather than 403. */
  readonly challengeAnonymous?: true
}

interface RouteTable {
  /** Who started the table, as the boot error names it. */
  readonly startedBy: string
  /** Fastify's printRoutes of the routes that existed when it started ('' when none). */
  readonly early: string
  /** Every route declared since it started; let go at ready(). */
  readonly declared: DeclaredRoute[]
  /** What every route enforces, built at ready(). */
  inventory: readonly RouteRuleEntry[] | undefined
}

// Keyed by the HTTP server: one table for the instance tree. Process-wide:
// trackRouteRules and the route-rules plugin may come from two copies of core.
const tables = processWide('core.routeTables.v1', () => new WeakMap<object, RouteTable>())

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

/** The routes whose rule or `fresh` no record enforces, by reason, in declaration order. */
function unenforced (routes: readonly DeclaredRoute[]): Map<string, { options: Set<string>, routes: string[] }> {
  const found = new Map<string, { options: Set<string>, routes: string[] }>()
  for (const { options: route } of routes) {
    const rule = declaredRule(route)
    const fresh = declaredFresh(route)
    if (rule === undefined && fresh === undefined) continue
    const record = routeRecord(route.config)
    const parts = [rule !== undefined && record?.rule !== rule ? 'authRule' : '', fresh !== undefined && record?.fresh !== fresh ? 'fresh' : ''].filter(Boolean)
    if (parts.length === 0) continue
    const reason = record === undefined
      ? 'the route was declared before the Gatehouse chain or outside its instance tree; declare routes after middlewareChain'
      : 'it was set after the Gatehouse chain compiled the route (by an onRoute hook added after the chain\'s); set it in the route\'s options, or add that hook before middlewareChain'
    const entry = found.get(reason) ?? { options: new Set<string>(), routes: [] }
    for (const part of parts) entry.options.add(part)
    entry.routes.push(routeName(route))
    found.set(reason, entry)
  }
  return found
}

function inventoryOf (routes: readonly DeclaredRoute[]): RouteRuleEntry[] {
  const entries: RouteRuleEntry[] = []
  for (const { options: route } of routes) {
    const record = routeRecord(route.config)
    const constraints = route.constraints as Record<string, unknown> | undefined
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      entries.push(Object.freeze({
        method: String(method),
        url: route.url,
        ...(constraints === undefined || Object.keys(constraints).length === 0 ? {} : { constraints: Object.freeze({ ...constraints }) }),
        rule: record?.rule ?? 'public',
        ...(record?.fresh === undefined ? {} : { fresh: record.fresh }),
        ...(record?.rule !== undefined && record.challengeAnonymous && record.accepts !== undefined ? { challengeAnonymous: true as const } : {})
      }))
    }
  }
  return entries
}

/**
 * Starts the route table of `app`'s server, once: records every route
 * declared on `app` and below it from now on, and adds the one boot check
 * (D-RULES-16). `by` names the starter in the error for routes that exist
 * already. Returns whether this call started it.
 */
export function startRouteTable (app: FastifyInstance, by: string): boolean {
  if (tables.has(app.server)) return false
  const table: RouteTable = { startedBy: by, early: existingRoutes(app), declared: [], inventory: undefined }
  tables.set(app.server, table)
  app.addHook('onRoute', function recordRoute (this: FastifyInstance, route) { table.declared.push({ options: route, instance: this }) })
  app.addHook('onReady', async function checkRouteRules () {
    if (table.early !== '') throw new GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN(table.startedBy, table.early)
    // One error: the routes that share the reason of the first route found.
    const [problem] = unenforced(table.declared)
    if (problem !== undefined) {
      const [reason, { options, routes }] = problem
      throw new GATEHOUSE_CORE_UNENFORCED_AUTH_RULE(['authRule', 'fresh'].filter((o) => options.has(o)).join(' and '), routes.join(', '), reason)
    }
    table.inventory = Object.freeze(inventoryOf(table.declared))
    // Nothing is declared after ready: the list is let go.
    table.declared.length = 0
  })
  return true
}

/**
 * Starts the route table on `instance` (the root, right after creating it,
 * before any route; `AppServer` does): every route declared from then on
 * is checked at `ready()`, which rejects with
 * `GATEHOUSE_CORE_UNENFORCED_AUTH_RULE`, naming the routes, when a route
 * carries an `authRule` or a `fresh` option (either spelling) that no
 * Gatehouse chain compiled — declared before the chain, or outside its
 * instance tree. With it, routes without a rule may come before the chain.
 * Throws `GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN` when routes exist already.
 * Without it, the chain starts the table, and routes declared before the
 * chain make `ready()` reject with `GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN`.
 */
export function trackRouteRules (instance: AnyFastifyInstance): void {
  const app = instance as FastifyInstance
  if (tables.has(app.server)) return
  const early = existingRoutes(app)
  if (early !== '') throw new GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN('trackRouteRules', early)
  startRouteTable(app, 'trackRouteRules')
}

/**
 * The routes declared so far on `app`'s server (its options, and the
 * instance it was declared on) since `trackRouteRules` or the Gatehouse
 * chain was installed, in order; empty after `ready()`. A component
 * registered late reads it to learn of the routes its own `onRoute` hook
 * never saw (cors: D-CORS-11).
 */
export function declaredRoutes (instance: AnyFastifyInstance): readonly DeclaredRoute[] {
  const table = tables.get((instance as FastifyInstance).server)
  return table?.inventory === undefined ? table?.declared ?? [] : []
}

/**
 * The inventory of `app`'s routes after `ready()`: every route declared
 * since the route table started (the chain, or `trackRouteRules`), one
 * entry per method, with the rule it enforces (`'public'` where none), its
 * `fresh` and whether it challenges anonymous callers. Fastify's automatic
 * HEAD routes are listed. Before `ready()` (or on an app without the
 * Gatehouse chain) it is `undefined`.
 * D-RULES-18.
 */
export function routeRules (app: AnyFastifyInstance): readonly RouteRuleEntry[] | undefined {
  return tables.get((app as FastifyInstance).server)?.inventory
}
