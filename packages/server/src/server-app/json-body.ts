import type { FastifyInstance } from 'fastify'

/**
 * Takes a JSON request without a body (`content-type: application/json` and
 * zero bytes: what a fetch wrapper or `curl -H` sends to a route that takes
 * none) as a request without a body, on this encapsulated instance only.
 * Fastify answers it 400 `FST_ERR_CTP_EMPTY_JSON_BODY`; the routes of the
 * `_server` app that take no body (logout, revoke, delete) accept none, and
 * those that need one still refuse it with their own 400 (the body schema's,
 * or the login's). Any other body, white space included, goes to Fastify's
 * own parser (prototype poisoning refused as the instance is configured).
 * D-SERVER-53.
 */
export function acceptEmptyJsonBodies (app: FastifyInstance): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning)
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser<string>('application/json', { parseAs: 'string' }, function jsonOrNone (request, body, done) {
    if (body.length === 0) {
      done(null, undefined)
      return
    }
    parseJson(request, body, done)
  })
}
