import type { FastifyPluginAsync } from 'fastify'
import { resolveCorsOptions, type CorsOptions } from './options.js'
import { corsHook } from './cors-hook.js'
import { routePreflights } from './preflight-routes.js'

export const cors: FastifyPluginAsync<CorsOptions> = async function cors (app, options) {
  const opts = resolveCorsOptions(options)
  if (opts.allowCredentials && opts.allowOrigins.includes('*')) {
    app.log.warn('cors: allowOrigins "*" with allowCredentials lets every site read credentialed responses; list the origins')
  }
  // onRequest: preflights are answered before auth (order 400) runs, and
  // the headers are on the reply before anything can fail.
  app.addHook('onRequest', corsHook(opts))
  // Inside a prefixed plugin, OPTIONS requests must be routed here first.
  routePreflights(app)
}
