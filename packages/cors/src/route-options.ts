import type { FastifyInstance, RouteOptions } from 'fastify'
import { isPlainObject, validateOptions } from '@fastify-gatehouse/core'
import { GATEHOUSE_CORS_INVALID_OPTIONS } from './errors.js'
import { corsRouteOptionsSchema, resolveCorsOptions, type CorsOptions, type CorsRouteOptions } from './options.js'
import { compilePolicy, type CorsPolicy } from './policy.js'
import type { RouteFinder } from './route-finder.js'
import { originWarnings } from './warnings.js'

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
    const methods = Array.isArray(route.method) ? route.method as string[] : [route.method as string]
    const where = `${methods.join(',')} ${route.url}`
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
    for (const warning of originWarnings(resolved, own.allowOrigins !== undefined)) app.log.warn(`cors: ${at}${warning}`)
  }
  return compilePolicy(resolved)
}
