import { Type } from '@sinclair/typebox'
import { GATEHOUSE_CORS_INVALID_OPTIONS } from './errors.js'
import { isSerializedOrigin, parseList, TOKEN, type ListOption } from '@fastify-gatehouse/core'

/** Options of the cors component; every key is optional. Lists also take a comma-separated string. */
export interface CorsOptions {
  /** Origins allowed to read responses (`https://app.example.com`), or `*` for any. Default: `['*']`. */
  allowOrigins?: ListOption
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

/** {@link CorsOptions} with defaults applied and lists parsed. */
export interface ResolvedCorsOptions {
  readonly allowOrigins: readonly string[]
  readonly allowMethods: readonly string[]
  readonly allowHeaders: readonly string[]
  readonly allowCredentials: boolean
  readonly exposeHeaders: readonly string[]
  readonly maxAge: number
}

export const defaults: ResolvedCorsOptions = Object.freeze({
  allowOrigins: Object.freeze(['*']),
  allowMethods: Object.freeze(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']),
  allowHeaders: Object.freeze(['*']),
  allowCredentials: false,
  exposeHeaders: Object.freeze([] as string[]),
  maxAge: 600
})

const list = () => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())]))

export const corsOptionsSchema = Type.Object({
  allowOrigins: list(),
  allowMethods: list(),
  allowHeaders: list(),
  allowCredentials: Type.Optional(Type.Boolean()),
  exposeHeaders: list(),
  maxAge: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 }))
}, { additionalProperties: false })

function tokens (name: string, value: ListOption | undefined, fallback: readonly string[]): string[] {
  if (value === undefined) return [...fallback]
  const items = parseList(value)
  for (const item of items) {
    if (!TOKEN.test(item)) throw new GATEHOUSE_CORS_INVALID_OPTIONS(name, `${JSON.stringify(item)} is not a token`)
  }
  return items
}

/** Applies the defaults and checks what the schema cannot (origins, tokens, `*` with credentials). */
export function resolveCorsOptions (options: CorsOptions): ResolvedCorsOptions {
  const allowOrigins = options.allowOrigins === undefined ? [...defaults.allowOrigins] : parseList(options.allowOrigins)
  if (allowOrigins.length === 0) throw new GATEHOUSE_CORS_INVALID_OPTIONS('allowOrigins', 'is empty, so no origin would be allowed (leave cors off instead)')
  for (const origin of allowOrigins) {
    if (origin !== '*' && !isSerializedOrigin(origin)) {
      throw new GATEHOUSE_CORS_INVALID_OPTIONS('allowOrigins', `${JSON.stringify(origin)} is not an origin (scheme://host[:port], lower-case, no path or trailing slash)`)
    }
  }
  const allowCredentials = options.allowCredentials ?? defaults.allowCredentials
  const exposeHeaders = tokens('exposeHeaders', options.exposeHeaders, defaults.exposeHeaders)
  // D-CORS-02: with credentials `*` would be a literal name, and response headers are unknown here.
  if (allowCredentials && exposeHeaders.includes('*')) {
    throw new GATEHOUSE_CORS_INVALID_OPTIONS('exposeHeaders', '"*" is only a wildcard without credentials (Fetch standard); list the headers')
  }
  return Object.freeze({
    allowOrigins,
    allowMethods: tokens('allowMethods', options.allowMethods, defaults.allowMethods).map((m) => m.toUpperCase()),
    allowHeaders: tokens('allowHeaders', options.allowHeaders, defaults.allowHeaders),
    allowCredentials,
    exposeHeaders,
    maxAge: options.maxAge ?? defaults.maxAge
  })
}
