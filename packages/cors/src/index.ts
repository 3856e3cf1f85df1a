import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { corsOptionsSchema, type CorsOptions, type CorsRouteOptions } from './options.js'
import { cors } from './plugin.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `false`: this route gets no CORS headers and no preflight answer.
     * An object: these options, over the component's, for this route and
     * the preflights that ask about it (compiled at boot).
     */
    cors?: false | CorsRouteOptions
  }
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
export { corsOptionsSchema, corsRouteOptionsSchema, defaults as corsDefaults, resolveCorsOptions } from './options.js'
export type { AllowOrigins, CorsOptions, CorsRouteOptions, OriginFunction, ResolvedCorsOptions } from './options.js'
export type { ListOption } from '@fastify-gatehouse/core'
export { GATEHOUSE_CORS_INVALID_OPTIONS, GATEHOUSE_CORS_INVALID_PREFLIGHT, GATEHOUSE_CORS_ORIGIN_CHECK_TIMEOUT, ORIGIN_CHECK_TIMEOUT } from './errors.js'
