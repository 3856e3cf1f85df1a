import type { ResolvedCorsOptions, OriginFunction } from './options.js'
import { originTest } from './origins.js'

/**
 * Every header value of one set of options, resolved once: the component's,
 * or a route's `config.cors` merged over them. A request costs a few
 * comparisons and header writes.
 */
export interface CorsPolicy {
  /** The static Origin test (`*`, origins, RegExps): the Access-Control-Allow-Origin value or undefined. */
  readonly allowOrigin: ((origin: string) => string | undefined) | undefined
  /** The function form, called instead (the origin is echoed when it answers true). */
  readonly decide: OriginFunction | undefined
  /** Milliseconds `decide` has to answer (`callbackTimeout`). */
  readonly decideWithin: number
  readonly credentials: boolean
  readonly expose: string | undefined
  readonly anyMethod: boolean
  readonly methods: string
  /** `*` in allowHeaders: echo Access-Control-Request-Headers. */
  readonly echoHeaders: boolean
  readonly allowHeaders: string
  readonly maxAge: string
  readonly status: number
}

export function compilePolicy (opts: ResolvedCorsOptions): CorsPolicy {
  const origins = opts.allowOrigins
  const decide = typeof origins === 'function' ? origins : undefined
  // With credentials, or without `*`, the origin is named, never `*`.
  const echo = opts.allowCredentials || decide !== undefined || !(origins as readonly unknown[]).includes('*')
  return Object.freeze({
    allowOrigin: typeof origins === 'function' ? undefined : originTest(origins, echo),
    decide,
    decideWithin: opts.callbackTimeout * 1000,
    credentials: opts.allowCredentials,
    expose: opts.exposeHeaders.length > 0 ? opts.exposeHeaders.join(', ') : undefined,
    anyMethod: opts.allowMethods.includes('*'),
    // D-CORS-15: no space after the comma, as @fastify/cors sends its default.
    methods: opts.allowMethods.join(','),
    echoHeaders: opts.allowHeaders.includes('*'),
    allowHeaders: opts.allowHeaders.join(', '),
    maxAge: String(opts.maxAge),
    status: opts.optionsSuccessStatus
  })
}
