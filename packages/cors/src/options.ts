import { Type } from '@sinclair/typebox'
import { GATEHOUSE_CORS_INVALID_OPTIONS } from './errors.js'
import { CALLBACK_TIMEOUT_LIMITS, CALLBACK_TIMEOUT_SECONDS, parseList, TOKEN, type ListOption } from '@fastify-gatehouse/core'
import { parseOrigins, type AllowOrigins, type OriginFunction } from './origins.js'

// The allowOrigins types live with the code that reads them (origins.ts), so
// that the two files do not import each other.
export type { AllowOrigins, OriginFunction } from './origins.js'

/** What a route may set in `config.cors` (every key optional; the component's value otherwise). */
export interface CorsRouteOptions {
  /** Origins allowed to read responses (`https://app.example.com`), `*` for any, RegExps, or a function. Default: `['*']`. */
  allowOrigins?: AllowOrigins
  /** Methods a preflight allows; `*` allows the one asked for. Default: GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS. */
  allowMethods?: ListOption
  /** Request headers a preflight allows; `*` allows the ones asked for (Authorization included). Default: `['*']`. */
  allowHeaders?: ListOption
  /** Let cross-origin callers send cookies and read credentialed responses. Default: `false`. */
  allowCredentials?: boolean
  /** Response headers cross-origin callers may read beyond the safelisted ones. Default: `[]`. */
  exposeHeaders?: ListOption
  /** Seconds a browser may cache a preflight answer (`Access-Control-Max-Age`). Default: 600. */
  maxAge?: number
}

/** Options of the cors component; every key is optional. Lists also take a comma-separated string. */
export interface CorsOptions extends CorsRouteOptions {
  /** Answer preflights (`OPTIONS` with `Access-Control-Request-Method`) here, before auth; `false` leaves every OPTIONS to the application's routes. Default: `true`. */
  preflight?: boolean
  /** Take every OPTIONS request as a preflight: one without `Origin` or `Access-Control-Request-Method` is refused with 400. Default: `false`. */
  strictPreflight?: boolean
  /** Status of an answered preflight, 200–299. Default: 204. */
  optionsSuccessStatus?: number
  /** Seconds an `allowOrigins` function has to answer, 0.001–300; then the request gets 503 with `Retry-After`. Default: `5`. */
  callbackTimeout?: number
}

/** {@link CorsOptions} with defaults applied and lists parsed. */
export interface ResolvedCorsOptions {
  /** `*`, origins and RegExps; or the function. */
  readonly allowOrigins: ReadonlyArray<string | RegExp> | OriginFunction
  readonly allowMethods: readonly string[]
  readonly allowHeaders: readonly string[]
  readonly allowCredentials: boolean
  readonly exposeHeaders: readonly string[]
  readonly maxAge: number
  readonly preflight: boolean
  readonly strictPreflight: boolean
  readonly optionsSuccessStatus: number
  readonly callbackTimeout: number
}

export const defaults: ResolvedCorsOptions = Object.freeze({
  allowOrigins: Object.freeze(['*']),
  allowMethods: Object.freeze(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']),
  allowHeaders: Object.freeze(['*']),
  allowCredentials: false,
  exposeHeaders: Object.freeze([] as string[]),
  maxAge: 600,
  preflight: true,
  strictPreflight: false,
  optionsSuccessStatus: 204,
  callbackTimeout: CALLBACK_TIMEOUT_SECONDS
})

const list = () => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())]))
// A RegExp passes as an object here; resolveCorsOptions checks that it is one.
const regExp = Type.Unsafe<RegExp>(Type.Object({}))
const originFunction = Type.Unsafe<OriginFunction>(Type.Function([Type.String(), Type.Any()], Type.Any()))

const routeProperties = {
  allowOrigins: Type.Optional(Type.Union([Type.String(), regExp, Type.Array(Type.Union([Type.String(), regExp])), originFunction])),
  allowMethods: list(),
  allowHeaders: list(),
  allowCredentials: Type.Optional(Type.Boolean()),
  exposeHeaders: list(),
  maxAge: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 }))
}

/** The keys a route's `config.cors` may set: the ones that shape headers. */
export const corsRouteOptionsSchema = Type.Object(routeProperties, { additionalProperties: false })

export const corsOptionsSchema = Type.Object({
  ...routeProperties,
  preflight: Type.Optional(Type.Boolean()),
  strictPreflight: Type.Optional(Type.Boolean()),
  optionsSuccessStatus: Type.Optional(Type.Integer({ minimum: 200, maximum: 299 })),
  callbackTimeout: Type.Optional(Type.Number({ minimum: CALLBACK_TIMEOUT_LIMITS.min, maximum: CALLBACK_TIMEOUT_LIMITS.max }))
}, { additionalProperties: false })

function tokens (name: string, value: ListOption | undefined, fallback: readonly string[]): string[] {
  if (value === undefined) return [...fallback]
  const items = parseList(value)
  for (const item of items) {
    if (!TOKEN.test(item)) throw new GATEHOUSE_CORS_INVALID_OPTIONS(name, `${JSON.stringify(item)} is not a token`)
  }
  return items
}

/**
 * Applies the defaults and checks what the schema cannot (origins, RegExp
 * flags, tokens, `*` with credentials). `at` prefixes the option names in
 * errors (`route GET /x: config.cors.`).
 */
export function resolveCorsOptions (options: CorsOptions, at = ''): ResolvedCorsOptions {
  const allowOrigins = parseOrigins(options.allowOrigins, ['*'], `${at}allowOrigins`)
  const allowCredentials = options.allowCredentials ?? defaults.allowCredentials
  const exposeHeaders = tokens(`${at}exposeHeaders`, options.exposeHeaders, defaults.exposeHeaders)
  // D-CORS-02: with credentials `*` would be a literal name, and response headers are unknown here.
  if (allowCredentials && exposeHeaders.includes('*')) {
    throw new GATEHOUSE_CORS_INVALID_OPTIONS(`${at}exposeHeaders`, '"*" is only a wildcard without credentials (Fetch standard); list the headers')
  }
  const preflight = options.preflight ?? defaults.preflight
  const strictPreflight = options.strictPreflight ?? defaults.strictPreflight
  // No silently ignored option: strictness is about the preflights cors answers.
  if (!preflight && strictPreflight) {
    throw new GATEHOUSE_CORS_INVALID_OPTIONS(`${at}strictPreflight`, 'applies only when cors answers preflights; it cannot be true with preflight: false')
  }
  return Object.freeze({
    allowOrigins,
    allowMethods: tokens(`${at}allowMethods`, options.allowMethods, defaults.allowMethods).map((m) => m.toUpperCase()),
    allowHeaders: tokens(`${at}allowHeaders`, options.allowHeaders, defaults.allowHeaders),
    allowCredentials,
    exposeHeaders,
    maxAge: options.maxAge ?? defaults.maxAge,
    preflight,
    strictPreflight,
    optionsSuccessStatus: options.optionsSuccessStatus ?? defaults.optionsSuccessStatus,
    callbackTimeout: options.callbackTimeout ?? defaults.callbackTimeout
  })
}
