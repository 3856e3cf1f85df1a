import type { FastifyInstance, FastifyPluginCallback } from 'fastify'
import fp from 'fastify-plugin'
import type { Avatar } from './avatar.js'
import { addErrorHeaders } from './error-headers.js'
import type { AnyFastifyInstance } from './fastify-instance.js'

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

const scopePlugin: FastifyPluginCallback = function scope (app, _opts, done) {
  app.decorateRequest<null>('scope', null)
  app.addHook('onRequest', function createScope (request, _reply, next) {
    request.scope = { auth: null }
    next()
  })
  app.addHook('onError', addErrorHeaders)
  done()
}

const plugin = fp(scopePlugin, { name: '@fastify-gatehouse/scope', fastify: '5.x' })

/**
 * Makes sure `request.scope` exists on `app`: decorates the request and
 * adds the `onRequest` hook that creates a fresh scope, once per instance
 * tree. Components call it first, so the scope hook is the first
 * `onRequest` hook of the chain. It installs no route rules: the chain and
 * every component call `ensureRouteRules` for that (D-RULES-15).
 */
export async function ensureScope (app: AnyFastifyInstance): Promise<void> {
  const instance = app as FastifyInstance
  if (instance.hasRequestDecorator('scope')) return
  await instance.register(plugin)
}
