import FindMyWay, { type HTTPMethod } from 'find-my-way'
import type { FastifyInstance } from 'fastify'
import { GATEHOUSE_CORS_INVALID_OPTIONS } from './errors.js'
import type { CorsPolicy } from './policy.js'

// A preflight is an OPTIONS request about another method on the same path;
// Fastify routes it to an OPTIONS route (or the not-found handler), never to
// the route it asks about, and its public `findRoute` tells whether a route
// matches but not which one. So the component keeps a router of its own,
// holding the routes of its scope as its `onRoute` hook sees them, built by
// the same library with the same matching options, and asks it which route
// the preflight is about. Only preflights consult it. A route it does not
// hold but Fastify's router does (one cors never saw: declared in another
// scope, or before cors) fails closed: cors-hook.ts asks `findRoute`.
// D-CORS-05, D-CORS-11.

/** What a route of the scope says: its own policy, `false` (no CORS), or `undefined` (the component's). */
export type RouteCors = CorsPolicy | false | undefined

/** What `find` answers when no route of the scope matches. */
export const NO_ROUTE: unique symbol = Symbol('no route')

interface Entry {
  readonly cors: RouteCors
  /** The `config.cors` value as the route gave it: two declarations agree when it is the same. */
  readonly given: unknown
  readonly where: string
}

// The router options of Fastify's own router that change which route a path
// matches. Fastify takes each from `routerOptions`, else from the deprecated
// top-level option; `initialConfig` shows both.
const MATCHING = ['caseSensitive', 'ignoreTrailingSlash', 'ignoreDuplicateSlashes', 'maxParamLength', 'allowUnsafeRegex', 'useSemicolonDelimiter'] as const

function matchingOptions (app: FastifyInstance): Record<string, unknown> {
  const config = app.initialConfig as Record<string, unknown> & { routerOptions?: Record<string, unknown> }
  const options: Record<string, unknown> = {}
  for (const key of MATCHING) {
    const value = config.routerOptions?.[key] ?? config[key]
    if (value !== undefined) options[key] = value
  }
  return options
}

export interface RouteFinder {
  /** Records a route of the scope (from `onRoute`); throws when it contradicts one already recorded. */
  add: (methods: readonly string[], url: string, cors: RouteCors, given: unknown, where: string) => void
  /** The CORS of the route `method url` would reach (`undefined`: it has no `config.cors`); `NO_ROUTE` when none of the scope matches. */
  find: (method: string, url: string) => RouteCors | typeof NO_ROUTE
}

export function routeFinder (app: FastifyInstance): RouteFinder {
  const router = FindMyWay(matchingOptions(app))
  return {
    add (methods, url, cors, given, where) {
      for (const method of methods) {
        // The same method and pattern again (parameter names aside: `/a/:id`
        // and `/a/:name` are one pattern to the router), with other
        // constraints (host, version): a preflight carries neither, so it
        // cannot tell them apart, and they must agree. D-CORS-12.
        const before = router.findRoute(method as HTTPMethod, url)
        if (before !== null) {
          const entry = before.store as Entry
          if (entry.given !== given) {
            throw new GATEHOUSE_CORS_INVALID_OPTIONS(`config.cors of route ${where}`, `differs from that of ${entry.where} (same method and path, other constraints); a preflight cannot tell them apart, so give them the same config.cors object`)
          }
          continue
        }
        try {
          router.on(method as HTTPMethod, url, noop, { cors, given, where } satisfies Entry)
        } catch {
          // Fastify took the route, so this cannot happen short of a
          // find-my-way difference; the mirror never stops a boot. The route
          // is then one cors does not know: its preflights fail closed.
        }
      }
    },
    find (method, url) {
      const found = router.find(method as HTTPMethod, url)
      return found === null ? NO_ROUTE : (found.store as Entry).cors
    }
  }
}

function noop (): void {}
