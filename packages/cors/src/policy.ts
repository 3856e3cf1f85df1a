import type { FastifyCorsOptions, FastifyCorsOptionsDelegateCallback } from '@fastify/cors'
import type { FastifyRequest } from 'fastify'
import type { ResolvedCorsOptions } from './options.js'
import { TOKEN } from './list.js'

// What @fastify/cors writes is chosen per request from these few frozen
// option sets, built once. @fastify/cors writes the headers and answers
// preflights; the decisions it cannot express are made here: a disallowed
// origin gets no CORS header at all, `*` is never sent with credentials,
// only a real preflight (OPTIONS + Access-Control-Request-Method) is
// answered, and upgrades and `OPTIONS *` are left alone.
const OFF: FastifyCorsOptions = Object.freeze({ origin: false })

/** Builds the per-request decision handed to @fastify/cors as its `delegator`. */
export function corsPolicy (opts: ResolvedCorsOptions): FastifyCorsOptionsDelegateCallback {
  const anyOrigin = opts.allowOrigins.includes('*')
  const allowed = new Set(opts.allowOrigins)
  // `origin: true` makes @fastify/cors echo the request's Origin.
  const echo = opts.allowCredentials || !anyOrigin
  const common: FastifyCorsOptions = {
    origin: echo ? true : '*',
    credentials: opts.allowCredentials,
    ...(opts.exposeHeaders.length > 0 ? { exposedHeaders: opts.exposeHeaders.join(', ') } : {})
  }
  const actual: FastifyCorsOptions = Object.freeze({ ...common, preflight: false })
  const anyMethod = opts.allowMethods.includes('*')
  const preflight: FastifyCorsOptions = Object.freeze({
    ...common,
    preflight: true,
    strictPreflight: false,
    methods: opts.allowMethods.join(', '),
    // null: @fastify/cors echoes Access-Control-Request-Headers (and varies
    // on it). `*` never covers Authorization (Fetch), so `*` is an echo.
    allowedHeaders: opts.allowHeaders.includes('*') ? null as unknown as string : opts.allowHeaders.join(', '),
    maxAge: opts.maxAge
  })

  function preflightFor (requested: string): FastifyCorsOptions {
    if (!anyMethod) return preflight
    // `*` with credentials is a literal method name (Fetch), so the method
    // asked for is named instead; one that is not a token is not answered.
    return TOKEN.test(requested) ? { ...preflight, methods: requested } : OFF
  }

  return function corsDecision (request: FastifyRequest, done: (error: Error | null, options: FastifyCorsOptions) => void): void {
    const origin = request.headers.origin
    if (origin === undefined || request.headers.upgrade !== undefined) {
      done(null, OFF)
      return
    }
    // An opaque origin (sandboxed frame, file:) is never echoed: with
    // credentials that would hand every sandboxed page the caller's data.
    if (origin === 'null' ? echo : !(anyOrigin || allowed.has(origin))) {
      done(null, OFF)
      return
    }
    if (request.method === 'OPTIONS') {
      // `OPTIONS *` asks about the server, not a resource: not CORS.
      if (request.url === '*') {
        done(null, OFF)
        return
      }
      const requested = request.headers['access-control-request-method']
      if (requested !== undefined) {
        done(null, preflightFor(requested))
        return
      }
    }
    done(null, actual)
  }
}
