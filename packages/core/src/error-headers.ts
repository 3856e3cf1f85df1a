import type { onErrorHookHandler } from 'fastify'
import { responseHeadersOf } from './coded-error.js'

// Headers that describe a body: the error handler writes its own body.
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding'])

/**
 * Puts a coded error's headers (a 401's `WWW-Authenticate`, a 503's
 * `Retry-After`; see `responseHeadersOf`) on the reply before the error handler runs: Fastify
 * applies `error.headers` only in its default handler, so an app with its
 * own `setErrorHandler` would answer a 401 without its challenge. Fastify
 * runs `onError` hooks before the error handler; the happy path never sees
 * this hook.
 * D-CORE-06, D-ERRORS-20.
 */
export const addErrorHeaders: onErrorHookHandler = function addErrorHeaders (_request, reply, error, done) {
  if (!reply.raw.headersSent) {
    for (const [name, value] of Object.entries(responseHeadersOf(error))) {
      if (!BODY_HEADERS.has(name)) reply.header(name, value)
    }
  }
  done()
}
