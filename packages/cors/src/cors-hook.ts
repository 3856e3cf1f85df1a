import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, HTTPMethods, onRequestHookHandler } from 'fastify'
import { addVary, errorForLog, HookTimeout, isThenable, settleWithin, TOKEN, TOKEN_LIST } from '@fastify-gatehouse/core'
import { GATEHOUSE_CORS_INVALID_PREFLIGHT, originCheckTimeout } from './errors.js'
import { showable } from './origins.js'
import type { CorsPolicy } from './policy.js'
import { NO_ROUTE, type RouteFinder } from './route-finder.js'

export interface HookSetup {
  /** The component's own policy. */
  readonly policy: CorsPolicy
  /** Where `onRoute` put a route's compiled `config.cors`. */
  readonly key: symbol
  /** The routes of the scope, for preflights; undefined with `preflight: false`. */
  readonly finder: RouteFinder | undefined
  readonly preflight: boolean
  readonly strictPreflight: boolean
}

/**
 * Builds the cors `onRequest` hook: every header value is resolved before
 * (policy.ts), so a request costs a few comparisons and header writes.
 *
 * The rules (Fetch standard, CORS protocol): a disallowed origin gets no
 * CORS header at all; `*` is never sent with credentials (the origin is
 * echoed); only OPTIONS with Access-Control-Request-Method is a preflight,
 * answered here, before auth runs, with the options of the route it asks
 * about; WebSocket upgrades and `OPTIONS *` are left alone. Responses vary
 * by Origin, so every other one says so.
 * D-CORS-01: a hand-written hook, not @fastify/cors: its delegator cost +17.8 µs per request.
 */
export function corsHook (setup: HookSetup): onRequestHookHandler {
  const { policy: base, key, finder, preflight, strictPreflight } = setup
  // Routes whose config.cors was never compiled (declared before the component), logged once each.
  const uncompiled = new WeakSet<object>()

  return function cors (request, reply, done) {
    if (request.headers.upgrade !== undefined) {
      done()
      return
    }
    const config = request.routeOptions.config as unknown as Record<string | symbol, unknown> | undefined
    const own = config?.cors
    // A route outside CORS answers the same to every Origin: no Vary either. D-CORS-14.
    if (own === false) {
      done()
      return
    }
    const origin = request.headers.origin
    const isOptions = request.method === 'OPTIONS'
    if (origin === undefined && !(strictPreflight && isOptions)) {
      // A cache must not serve this answer to a CORS request.
      addVary(reply, 'Origin')
      done()
      return
    }
    // `OPTIONS *` asks about the server, not a resource: not CORS.
    if (isOptions && request.url === '*') {
      done()
      return
    }
    addVary(reply, 'Origin')
    if (origin === undefined) {
      done(new GATEHOUSE_CORS_INVALID_PREFLIGHT('it has no Origin header'))
      return
    }
    const requested = isOptions && preflight ? request.headers['access-control-request-method'] : undefined
    let policy = base
    if (requested !== undefined) {
      // The preflight asks about `requested` on this path: that route's options.
      if (finder !== undefined) {
        const route = finder.find(requested, request.url)
        // A route cors never saw (another scope's, or declared before cors)
        // is not answered with the component's options: fail closed. D-CORS-11.
        if (route === false || (route === NO_ROUTE && unseenRoute(request, requested))) {
          done()
          return
        }
        if (route !== undefined && route !== NO_ROUTE) policy = route
      }
    } else if (own !== undefined) {
      const compiled = config?.[key] as CorsPolicy | undefined
      if (compiled === undefined) {
        // Fail closed: the route's own options were never seen (D-CORS-06).
        if (!uncompiled.has(config as object)) {
          uncompiled.add(config as object)
          request.log.error(`cors: route ${request.routeOptions.method} ${request.routeOptions.url} has config.cors options that cors never compiled (the route was declared before cors was registered); its responses get no CORS headers: declare routes after cors`)
        }
        done()
        return
      }
      policy = compiled
    }
    if (policy.decide === undefined) {
      finish(request, reply, done, policy, policy.allowOrigin!(origin), requested, strictPreflight)
      return
    }
    decide(request, reply, done, policy, origin, requested, strictPreflight)
  }
}

/**
 * Whether Fastify's router has a route for `method` on the preflight's URL
 * that the actual request could reach: one for its Host, or one
 * constrained by another strategy (`version`, or one of the application's),
 * which a preflight never carries a value for (Accept-Version or a custom
 * header is not CORS-safelisted, so the actual request names it in
 * Access-Control-Request-Headers and a preflight comes first). A lookup
 * that throws counts as a route: fail closed.
 * D-CORS-13, D-CORS-17.
 */
function unseenRoute (request: FastifyRequest, method: string): boolean {
  const host = request.headers.host
  // D-CORS-17: the router reads a strategy's value only where a route of the method matching
  // the path is constrained by it; a read of any but `host` means such a route exists.
  let constrained = false
  const constraints = new Proxy({}, {
    get (_target, name) {
      if (name === 'host') return host
      constrained = true
      return undefined
    }
  })
  try {
    return request.server.findRoute({ method: method as HTTPMethods, url: request.url, constraints }) !== null || constrained
  } catch {
    return true
  }
}

/**
 * The function form: the origin is allowed when it answers true; a throw or
 * rejection is "not allowed", logged, never a 500. A promise that does not
 * settle within `callbackTimeout` is a 503 (its late answer is ignored), so
 * a hung check cannot hold requests open.
 * D-CORS-07, D-CORS-18.
 */
function decide (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, policy: CorsPolicy, origin: string, requested: string | undefined, strict: boolean): void {
  // `null` and what is not an origin never reach the function (D-CORS-03,
  // D-CORS-08, D-CORS-09).
  if (!showable(origin)) {
    finish(request, reply, done, policy, undefined, requested, strict)
    return
  }
  const refused = (err: unknown): void => {
    if (err instanceof HookTimeout) {
      done(originCheckTimeout(err))
      return
    }
    request.log.error({ err: errorForLog(err) }, 'cors: the allowOrigins function failed; the origin is taken as not allowed')
    finish(request, reply, done, policy, undefined, requested, strict)
  }
  const decided = (verdict: unknown): void => {
    if (typeof verdict !== 'boolean') {
      request.log.error(`cors: the allowOrigins function answered ${typeof verdict}, not a boolean; the origin is taken as not allowed`)
    }
    finish(request, reply, done, policy, verdict === true ? origin : undefined, requested, strict)
  }
  let verdict: unknown
  try {
    verdict = policy.decide!(origin, request)
  } catch (err) {
    refused(err)
    return
  }
  if (isThenable(verdict)) settleWithin(Promise.resolve(verdict), policy.decideWithin, 'the cors allowOrigins function').then(decided, refused)
  else decided(verdict)
}

/** Writes the headers for an allowed origin (`value` is Access-Control-Allow-Origin), and answers a preflight. */
function finish (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, policy: CorsPolicy, value: string | undefined, requested: string | undefined, strict: boolean): void {
  if (value === undefined) {
    refuseOrContinue(request, done, requested, strict)
    return
  }
  // With `*` methods the method asked for is named (with credentials `*`
  // would be a literal method name); one that is not a token is not answered (D-CORS-02).
  if (requested !== undefined && policy.anyMethod && !TOKEN.test(requested)) {
    done()
    return
  }
  reply.header('access-control-allow-origin', value)
  if (policy.credentials) reply.header('access-control-allow-credentials', 'true')
  if (policy.expose !== undefined) reply.header('access-control-expose-headers', policy.expose)
  if (requested === undefined) {
    refuseOrContinue(request, done, requested, strict)
    return
  }
  reply.header('access-control-allow-methods', policy.anyMethod ? requested : policy.methods)
  if (policy.echoHeaders) {
    // `*` never covers Authorization (Fetch), so `*` echoes what was asked.
    // D-CORS-02: an echo, with or without credentials.
    addVary(reply, 'Access-Control-Request-Headers')
    const asked = request.headers['access-control-request-headers']
    // Access-Control-Request-Headers as browsers send it: tokens and commas.
    // Anything else is not echoed (the preflight then fails in the browser) (D-CORS-01).
    if (asked !== undefined && TOKEN_LIST.test(asked)) reply.header('access-control-allow-headers', asked)
  } else {
    reply.header('access-control-allow-headers', policy.allowHeaders)
  }
  reply.header('access-control-max-age', policy.maxAge)
  // Safari waits for a body on a 204 without Content-Length.
  reply.code(policy.status).header('content-length', '0').send()
}

// With strictPreflight every OPTIONS is taken as a preflight, so one
// without Access-Control-Request-Method is refused (400), after the
// headers that let the page read why. D-CORS-10.
function refuseOrContinue (request: FastifyRequest, done: HookHandlerDoneFunction, requested: string | undefined, strict: boolean): void {
  if (strict && requested === undefined && request.method === 'OPTIONS') {
    done(new GATEHOUSE_CORS_INVALID_PREFLIGHT('it has no Access-Control-Request-Method header'))
    return
  }
  done()
}
