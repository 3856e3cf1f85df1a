import type { FastifyPluginAsync } from 'fastify'
import { bootWarning } from '@fastify-gatehouse/core'
import { resolveCorsOptions, type CorsOptions } from './options.js'
import { corsHook } from './cors-hook.js'
import { compilePolicy } from './policy.js'
import { routePreflights } from './preflight-routes.js'
import { routeFinder } from './route-finder.js'
import { compileRouteOptions, earlierRoutes } from './route-options.js'
import { originWarnings } from './warnings.js'

export const cors: FastifyPluginAsync<CorsOptions> = async function cors (app, options) {
  const opts = resolveCorsOptions(options)
  for (const warning of originWarnings(opts, true)) bootWarning(app.log, 'GATEHOUSE_CORS_ORIGIN_SETTING', `cors: ${warning}`)
  // One key per component instance: a route under two cors components is
  // compiled against each one's options.
  const key = Symbol('cors route policy')
  const finder = opts.preflight ? routeFinder(app) : undefined
  earlierRoutes(app, finder)
  compileRouteOptions(app, options, key, finder)
  // onRequest: preflights are answered before auth (order 400) runs, and
  // the headers are on the reply before anything can fail.
  app.addHook('onRequest', corsHook({ policy: compilePolicy(opts), key, finder, preflight: opts.preflight, strictPreflight: opts.strictPreflight }))
  // Inside a prefixed plugin, OPTIONS requests must be routed here first.
  if (opts.preflight) routePreflights(app)
}
