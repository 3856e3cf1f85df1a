import type { FastifyPluginAsync } from 'fastify'
import { pathWithoutQuery } from '@fastify-gatehouse/core'
import { documentHandler } from './documents.js'
import { isDotPath, targetPath } from './dot-path.js'
import { GATEHOUSE_WELLKNOWN_NOT_FOUND } from './errors.js'
import { resolveWellKnownOptions, type WellKnownOptions } from './options.js'

/**
 * The wellknown component's plugin: the dot-path guard (an `onRequest`
 * hook) and one route per document.
 */
export const wellknown: FastifyPluginAsync<WellKnownOptions> = async function wellknown (app, options) {
  const { documents } = resolveWellKnownOptions(options)
  // Every entry is checked (and serialised) before anything is registered.
  const routes = Object.entries(documents).map(([name, document]) => ({ url: `/.well-known/${name}`, handler: documentHandler(name, document) }))
  const served = new Set(routes.map((r) => r.url))

  // onRequest at order 150: a dot path is refused before logging, auth and
  // the application see it, even where the application has such a route.
  app.addHook('onRequest', function refuseDotPaths (request, _reply, done) {
    const url = request.url
    const second = url.charCodeAt(1)
    // The common case, decided on two characters: "/x…" with x not ".", "%" or "/" (D-WELLKNOWN-03).
    if (url.charCodeAt(0) === 47 && second !== 46 && second !== 37 && second !== 47) {
      done()
      return
    }
    const path = targetPath(url)
    if (path === null || !isDotPath(path) || served.has(pathWithoutQuery(path))) {
      done()
      return
    }
    done(new GATEHOUSE_WELLKNOWN_NOT_FOUND())
  })

  // The documents are routes of their own (encapsulated): the rest of the
  // chain (cors, auth, logging) applies to them like to any route.
  // D-WELLKNOWN-01: routes, not the hook at 150, so cors (300) still applies to them.
  await app.register(async function wellKnownRoutes (child) {
    for (const { url, handler } of routes) child.get(url, handler)
  })
}
