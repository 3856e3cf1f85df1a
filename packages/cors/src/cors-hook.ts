import type { onRequestHookHandler } from 'fastify'
import { addVary, TOKEN, TOKEN_LIST } from '@fastify-gatehouse/core'
import type { ResolvedCorsOptions } from './options.js'

/**
 * Builds the cors `onRequest` hook: every header value is resolved here,
 * once, so a request costs a few comparisons and header writes.
 *
 * The rules (Fetch standard, CORS protocol): a disallowed origin gets no
 * CORS header at all; `*` is never sent with credentials (the origin is
 * echoed); only OPTIONS with Access-Control-Request-Method is a preflight,
 * answered 204 here, before auth runs; WebSocket upgrades and `OPTIONS *`
 * are left alone. Responses vary by Origin, so every other one says so.
 * D-CORS-01: a hand-written hook, not @fastify/cors: its delegator cost +17.8 µs per request.
 */
export function corsHook (opts: ResolvedCorsOptions): onRequestHookHandler {
  const anyOrigin = opts.allowOrigins.includes('*')
  const allowed = new Set(opts.allowOrigins)
  const echo = opts.allowCredentials || !anyOrigin
  const anyMethod = opts.allowMethods.includes('*')
  const echoHeaders = opts.allowHeaders.includes('*')
  const methods = opts.allowMethods.join(', ')
  const allowHeaders = opts.allowHeaders.join(', ')
  const maxAge = String(opts.maxAge)
  const credentials = opts.allowCredentials
  const expose = opts.exposeHeaders.length > 0 ? opts.exposeHeaders.join(', ') : undefined

  // The Access-Control-Allow-Origin value for `origin`, or undefined when it
  // is not allowed. An opaque origin (`null`: sandboxed frame, file:) is
  // never echoed: with credentials that would hand every sandboxed page
  // the caller's data (D-CORS-03).
  function allowOrigin (origin: string): string | undefined {
    if (origin === 'null') return echo ? undefined : '*'
    if (!anyOrigin && !allowed.has(origin)) return undefined
    return echo ? origin : '*'
  }

  return function cors (request, reply, done) {
    if (request.headers.upgrade !== undefined) {
      done()
      return
    }
    const origin = request.headers.origin
    if (origin === undefined) {
      // A cache must not serve this answer to a CORS request.
      addVary(reply, 'Origin')
      done()
      return
    }
    // `OPTIONS *` asks about the server, not a resource: not CORS.
    if ((request.method === 'OPTIONS' && request.url === '*') || request.routeOptions.config?.cors === false) {
      done()
      return
    }
    addVary(reply, 'Origin')
    const allowOriginValue = allowOrigin(origin)
    if (allowOriginValue === undefined) {
      done()
      return
    }
    const requested = request.method === 'OPTIONS' ? request.headers['access-control-request-method'] : undefined
    // With `*` methods the method asked for is named (with credentials `*`
    // would be a literal method name); one that is not a token is not answered (D-CORS-02).
    if (requested !== undefined && anyMethod && !TOKEN.test(requested)) {
      done()
      return
    }
    reply.header('access-control-allow-origin', allowOriginValue)
    if (credentials) reply.header('access-control-allow-credentials', 'true')
    if (expose !== undefined) reply.header('access-control-expose-headers', expose)
    if (requested === undefined) {
      done()
      return
    }
    reply.header('access-control-allow-methods', anyMethod ? requested : methods)
    if (echoHeaders) {
      // `*` never covers Authorization (Fetch), so `*` echoes what was asked.
      // D-CORS-02: an echo, with or without credentials.
      addVary(reply, 'Access-Control-Request-Headers')
      const asked = request.headers['access-control-request-headers']
      // Access-Control-Request-Headers as browsers send it: tokens and commas.
      // Anything else is not echoed (the preflight then fails in the browser) (D-CORS-01).
      if (asked !== undefined && TOKEN_LIST.test(asked)) reply.header('access-control-allow-headers', asked)
    } else {
      reply.header('access-control-allow-headers', allowHeaders)
    }
    reply.header('access-control-max-age', maxAge)
    // Safari waits for a body on a 204 without Content-Length.
    reply.code(204).header('content-length', '0').send()
  }
}
