import type { FastifyInstance, RouteOptions } from 'fastify'
import { bootWarning, declaredRoutes, isPlainObject, processWide, validateOptions } from '@fastify-gatehouse/core'
import { GATEHOUSE_CORS_INVALID_OPTIONS } from './errors.js'
import { corsRouteOptionsSchema, resolveCorsOptions, type CorsOptions, type CorsRouteOptions } from './options.js'
import { compilePolicy, type CorsPolicy } from './policy.js'
import type { RouteFinder } from './route-finder.js'
import { originWarnings } from './warnings.js'

// The route options objects some cors component's `onRoute` hook saw
// (process-wide, like core's marks: two copies of this package may meet).
const seenByCors = processWide('cors.seenRoutes.v1', () => new WeakSet<object>())

function routeWhere (route: RouteOptions): { methods: string[], where: string } {
  const methods = Array.isArray(route.method) ? route.method as string[] : [route.method as string]
  return { methods, where: `${methods.join(',')} ${route.url}` }
}

/**
 * The routes of this component's scope (its instance and those inside it)
 * declared before it: core records them under `trackRouteRules` and from
 * the chain's install. A `config.cors` on one that no cors component saw
 * would be ignored, so it is a boot error naming the routes. The others
 * enter the preflight mirror, so that a preflight gets the options their
 * actual requests get: the component's (this component's hook runs for
 * them). Routes of other scopes stay out: a preflight about one fails
 * closed (cors-hook.ts). D-CORS-11.
 */
export function earlierRoutes (app: FastifyInstance, finder: RouteFinder | undefined): void {
  const unseen: string[] = []
  for (const { options: route, instance } of declaredRoutes(app)) {
    // Fastify's encapsulated instances inherit from their parent.
    if (instance !== app && !Object.prototype.isPrototypeOf.call(app, instance)) continue
    const given = (route.config as { cors?: unknown } | undefined)?.cors
    const { methods, where } = routeWhere(route)
    if (given !== undefined && !seenByCors.has(route)) unseen.push(where)
    else if (given === undefined) finder?.add(methods, route.url, undefined, undefined, where)
  }
  if (unseen.length > 0) {
    throw new GATEHOUSE_CORS_INVALID_OPTIONS(`config.cors of route${unseen.length > 1 ? 's' : ''} ${unseen.join(', ')}`, 'declared before cors was registered, so cors never saw it; declare routes after cors (after middlewareChain)')
  }
}

/**
 * Compiles, once per route in `onRoute`, a route's `config.cors` object
 * merged over the component's options, and stores the policy in the route's
 * config under `key` (one symbol per component instance: two cors
 * components merge over different options). Bad values are boot errors
 * naming the route and the key. Every route of the scope is recorded in
 * `finder`, for preflights.
 * D-CORS-06.
 */
export function compileRouteOptions (app: FastifyInstance, component: CorsOptions, key: symbol, finder: RouteFinder | undefined): void {
  // Fastify copies a GET route into its HEAD route, config included: the
  // same object compiles once (and warns once).
  const compiled = new WeakMap<object, CorsPolicy>()
  app.addHook('onRoute', function compileRouteCors (route: RouteOptions) {
    seenByCors.add(route)
    const { methods, where } = routeWhere(route)
    const given = (route.config as { cors?: unknown } | undefined)?.cors
    let cors: CorsPolicy | false | undefined
    if (given === undefined || given === false) {
      cors = given
    } else if (isPlainObject(given)) {
      cors = compiled.get(given)
      if (cors === undefined) {
        cors = compile(app, component, given, where)
        compiled.set(given, cors)
      }
      route.config = { ...(route.config as object), [key]: cors } as RouteOptions['config']
    } else {
      throw new GATEHOUSE_CORS_INVALID_OPTIONS(`route ${where}: config.cors`, `must be false or an object of cors options, not ${JSON.stringify(given) ?? typeof given}`)
    }
    finder?.add(methods, route.url, cors, given, where)
  })
}

function compile (app: FastifyInstance, component: CorsOptions, given: object, where: string): CorsPolicy {
  const at = `route ${where}: config.cors.`
  validateOptions(corsRouteOptionsSchema, given, `route ${where}: config.cors`)
  const own = given as CorsRouteOptions
  const resolved = resolveCorsOptions({ ...component, ...own }, at)
  // Only about what the route changed: the component's own were logged at registration.
  if (own.allowOrigins !== undefined || own.allowCredentials !== undefined) {
    for (const warning of originWarnings(resolved, own.allowOrigins !== undefined)) bootWarning(app.log, 'GATEHOUSE_CORS_ORIGIN_SETTING', `cors: ${at}${warning}`)
  }
  return compilePolicy(resolved)
}
