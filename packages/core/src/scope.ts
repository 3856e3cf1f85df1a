import type { FastifyInstance, FastifyPluginCallback } from 'fastify'
import fp from 'fastify-plugin'
import type { Avatar } from './avatar.js'
import { addErrorHeaders } from './error-headers.js'
import { GATEHOUSE_CORE_FORBIDDEN } from './errors.js'
import { enforceRouteRules, unenforcedRule } from './route-rules.js'
import { recordRoutes, refuseRoutesBeforeChain } from './rule-coverage.js'

/**
 * Per-request state shared by the components, at `request.scope`. Other
 * packages add their fields by declaration merging on this interface.
 */
export interface RequestScope {
  /** The authenticated caller, or `null` for an anonymous request. */
  auth: Avatar | null
  /** The file a route answers with; the cache component derives validators from it. */
  filePath?: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The Gatehouse request scope: a fresh object assigned by the first
     * `onRequest` hook. It is `null` only for errors raised before any
     * hook ran (e.g. a malformed URL), so error paths read it with `?.`.
     */
    scope: RequestScope
  }
}

/**
 * A Fastify instance whatever its server, logger and type provider: the
 * entry points take any (an app built with a pino `loggerInstance` has a
 * different logger type from the default).
 */

export type AnyFastifyInstance = FastifyInstance<any, any, any, any, any>

const scopePlugin: FastifyPluginCallback = function scope (app, _opts, done) {
  app.decorateRequest<null>('scope', null)
  app.addHook('onRequest', function createScope (request, _reply, next) {
    request.scope = { auth: null }
    // A rule no `onRoute` hook compiled (boot checks catch routes declared
    // before the chain; this catches what they cannot see): refuse, never
    // serve it open.
    // D-RULES-07: the second line behind the boot checks (D-RULES-04).
    const unenforced = unenforcedRule(request.routeOptions.config)
    if (unenforced !== undefined) {
      request.log.error(`${unenforced} of ${request.method} ${request.routeOptions.url ?? ''} is not enforced: it was set after the chain's onRoute hook ran; refusing`)
      next(new GATEHOUSE_CORE_FORBIDDEN())
      return
    }
    next()
  })
  app.addHook('onError', addErrorHeaders)
  refuseRoutesBeforeChain(app)
  recordRoutes(app)
  enforceRouteRules(app)
  done()
}

const plugin = fp(scopePlugin, { name: '@fastify-gatehouse/scope', fastify: '5.x' })

/**
 * Makes sure `request.scope` exists on `app`: decorates the request, adds
 * the `onRequest` hook that creates a fresh scope and the `onRoute` hook
 * that enforces route `authRule`s, once per instance tree. Routes declared
 * on the root before this (unless it is tracked, see `trackRouteRules`)
 * make `ready()` reject with `GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN`.
 * Components call it first, so the scope hook is the first `onRequest` hook
 * of the chain.
 */
export async function ensureScope (app: AnyFastifyInstance): Promise<void> {
  const instance = app as FastifyInstance
  if (instance.hasRequestDecorator('scope')) return
  await instance.register(plugin)
}
