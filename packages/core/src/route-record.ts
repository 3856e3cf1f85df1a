import type { onRequestHookHandler, RouteOptions } from 'fastify'
import type { AuthAccepts } from './route-challenges.js'

/**
 * What the route-rules plugin knows of one route, compiled once in its
 * `onRoute` hook: the one record of the route's rule (D-RULES-15). It sits
 * on the route's config under one registered key, so that a component of
 * another copy of core reads it (auth's `routeNeedsCaller`).
 */
export interface RouteRecord {
  /** The route's `authRule` (its own, or its scope's default), or `undefined` for an open route. */
  readonly rule: string | undefined
  /** Whether `rule` is the scope's default (`setDefaultAuthRule`). */
  readonly fromDefault: boolean
  /** The route's `fresh`, in seconds, or `undefined`. */
  readonly fresh: number | undefined
  /** The route-level `onRequest` hook that enforces both, or `undefined` when there is nothing to enforce. */
  readonly check: onRequestHookHandler | undefined
  /** What the authentication component of the route's scope accepts, for the refusal of an anonymous caller. */
  readonly accepts: AuthAccepts | undefined
  /** Whether an anonymous caller the rule refuses is challenged (401) rather than refused (403). */
  readonly challengeAnonymous: boolean
}

/** The key of a route's record on its config (registered: any copy of core reads it, D-CORE-05). */
const kRouteRecord = Symbol.for('fastify-gatehouse.core.routeRecord.v1')

/** The record on a route's config, or `undefined` for a route no route-rules plugin compiled. */
export function routeRecord (config: unknown): RouteRecord | undefined {
  if (typeof config !== 'object' || config === null) return undefined
  return (config as Record<symbol, RouteRecord | undefined>)[kRouteRecord]
}

/** `route`'s config with `record` under the record's key (a new object: configs may be shared between routes). */
export function withRouteRecord (route: RouteOptions, record: RouteRecord): RouteOptions['config'] {
  return { ...(route.config as object | undefined), [kRouteRecord]: record } as RouteOptions['config']
}

/**
 * Whether a route's config carries a compiled `authRule` or `fresh` (either
 * spelling): a route that needs a caller. `false` for an open route, and for
 * the 404 handler. For components that treat a failed optional credential
 * differently on open routes (auth's expired cookie token).
 */
export function routeNeedsCaller (config: unknown): boolean {
  const record = routeRecord(config)
  return record !== undefined && (record.rule !== undefined || record.fresh !== undefined)
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

/** `GET /orders`, `GET,POST /orders`: a route as boot errors name it. */
export function routeName (route: RouteOptions): string {
  return `${Array.isArray(route.method) ? route.method.join(',') : String(route.method)} ${route.url}`
}
