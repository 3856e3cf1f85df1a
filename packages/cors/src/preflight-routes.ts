import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import { bootWarning } from '@fastify-gatehouse/core'

// A request reaches an instance's onRequest hooks only when it is routed
// into that instance. At the root, an OPTIONS without a route of its own
// goes to the not-found handler, which carries the root's hooks, so the
// cors hook sees it. In an encapsulated plugin it does not: its hooks run
// only for its routes. So, like @fastify/cors, the component routes the
// OPTIONS requests of its scope to itself, but by path prefix: `<prefix>`
// and `<prefix>/*`, never `<prefix>*` (which would take `/apifoo` into
// `/api`; a preflight answer lets a browser send the request, so none may
// leak past the scope). A plugin without a prefix has no path scope: its
// routes cannot be told from the rest of the app by URL, so nothing is
// routed and the boot log says so. Nothing is added at the root, so an
// application's own `OPTIONS /*` (a proxy, an SPA fallback) stays free
// (D-CORS-04).

/** An OPTIONS that the cors hook did not answer is not ours: the not-found handler has it. */
function notPreflight (_request: FastifyRequest, reply: FastifyReply): void {
  reply.callNotFound()
}

/** Whether `app` is the root instance (encapsulated ones inherit from their parent). */
function isRoot (app: FastifyInstance): boolean {
  return Object.getPrototypeOf(app) === Object.prototype
}

/**
 * Routes the OPTIONS requests under `app.prefix` to `app`, so that its cors
 * hook answers their preflights. A route the application declared already
 * on the same path is kept (its requests run the hook too).
 */
export function routePreflights (app: FastifyInstance): void {
  const prefix = app.prefix
  if (prefix === '') {
    if (!isRoot(app)) {
      bootWarning(app.log, 'GATEHOUSE_CORS_NO_PREFLIGHT_ROUTES', 'cors: registered in an encapsulated plugin without a prefix, it adds CORS headers to that plugin\'s routes but cannot answer their preflights (an OPTIONS request is only routed to the plugin by path); register cors at the root or in a plugin with a prefix')
    }
    return
  }
  // `hide` keeps them out of @fastify/swagger's document (its own key, not Fastify's type).
  const hidden = { schema: { hide: true } as FastifySchema }
  // `<prefix>` itself; a prefix ending in `/` has no slash-less form (as
  // with Fastify's own routes under it).
  if (!prefix.endsWith('/') && !app.hasRoute({ method: 'OPTIONS', url: prefix })) {
    app.route({ method: 'OPTIONS', url: '', ...hidden, handler: notPreflight })
  }
  const below = prefix.endsWith('/') ? `${prefix}*` : `${prefix}/*`
  if (!app.hasRoute({ method: 'OPTIONS', url: below })) {
    app.route({ method: 'OPTIONS', url: prefix.endsWith('/') ? '*' : '/*', ...hidden, handler: notPreflight })
  }
}
