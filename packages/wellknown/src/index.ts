import type { FastifyPluginAsync } from 'fastify'
import { defineComponent } from '@fastify-gatehouse/core'
import { documentHandler } from './documents.js'
import { isDotPath, targetPath, withoutQuery } from './dot-path.js'
import { GATEHOUSE_WELLKNOWN_NOT_FOUND } from './errors.js'
import { resolveWellKnownOptions, wellKnownOptionsSchema, type WellKnownOptions } from './options.js'

const wellknown: FastifyPluginAsync<WellKnownOptions> = async function wellknown (app, options) {
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
    if (path === null || !isDotPath(path) || served.has(withoutQuery(path))) {
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

/**
 * The wellknown component (order 150, off by default): serves
 * `/.well-known/<name>` from its `documents`, and answers 404 in an
 * `onRequest` hook for every other path whose first segment starts with a
 * dot (`/.env`, `/.git/config`, other well-known names).
 */
export const wellknownPlugin = defineComponent<WellKnownOptions>({
  name: 'wellknown',
  order: 150,
  schema: wellKnownOptionsSchema,
  plugin: wellknown
})

export default wellknownPlugin
export { defaults as wellknownDefaults, resolveWellKnownOptions, wellKnownOptionsSchema } from './options.js'
export type { ResolvedWellKnownOptions, WellKnownDocument, WellKnownOptions, WellKnownValue } from './options.js'
export { GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT, GATEHOUSE_WELLKNOWN_NOT_FOUND } from './errors.js'
