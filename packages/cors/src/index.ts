import type { FastifyPluginAsync } from 'fastify'
import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { corsOptionsSchema, resolveCorsOptions, type CorsOptions } from './options.js'
import { corsHook } from './cors-hook.js'
import { routePreflights } from './preflight-routes.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: this route gets no CORS headers and no preflight answer. */
    cors?: false
  }
}

const cors: FastifyPluginAsync<CorsOptions> = async function cors (app, options) {
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

/**
 * The cors component (order 300, off by default): CORS headers and
 * preflight answers in one `onRequest` hook, with the Fetch standard's rules
 * for credentials and wildcards.
 */
export const corsPlugin = defineComponent<CorsOptions>({
  name: 'cors',
  order: ORDER.cors,
  schema: corsOptionsSchema,
  plugin: cors
})

export default corsPlugin
export { corsOptionsSchema, defaults as corsDefaults, resolveCorsOptions } from './options.js'
export type { CorsOptions, ResolvedCorsOptions } from './options.js'
export type { ListOption } from '@fastify-gatehouse/core'
export { GATEHOUSE_CORS_INVALID_OPTIONS } from './errors.js'
