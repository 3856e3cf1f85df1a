import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { errorForLog, formatChallenge, PAGE_HEADERS, pathWithoutQuery, reauthenticateChallenge, ReauthenticateError, Redirect, redactPath, redactText, safeNextPath } from '@fastify-gatehouse/core'
import { acceptsHtml, acceptsJson } from './accept.js'
import { describeError } from './describe-error.js'
import { GATEHOUSE_ERRORS_INTERNAL, GATEHOUSE_ERRORS_NOT_FOUND } from './errors.js'
import { renderForbiddenPage } from './forbidden-page.js'
import { loginUrl } from './login-url.js'
import { resolveErrorsOptions, type ErrorsOptions } from './options.js'

// A route rule's refusal: the page's own sentence says it all.
const FORBIDDEN = 'GATEHOUSE_CORE_FORBIDDEN'
// An anonymous caller whose Authorization header nothing read: told where to sign in instead (D-AUTH-73).
const SCHEME_NOT_ACCEPTED = 'GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED'

// Headers an error may not carry over: the body is rewritten here.
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding'])

function applyHeaders (reply: FastifyReply, headers: Readonly<Record<string, unknown>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (BODY_HEADERS.has(name.toLowerCase())) continue
    if (typeof value === 'string' || typeof value === 'number' ||
      (Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
      reply.header(name, value)
    }
  }
}

/**
 * The errors component's plugin: sets the error handler and (unless
 * `notFound: false`) the not-found handler of the instance.
 */
export const errors: FastifyPluginAsync<ErrorsOptions> = async function errors (app, options) {
  const opts = resolveErrorsOptions(options)
  // D-ERRORS-05: Bearer, not Basic: a Basic challenge opens the browser's password dialog.
  const defaultChallenge = formatChallenge('Bearer', { realm: opts.realm })

  function send (thrown: unknown, request: FastifyRequest, reply: FastifyReply): void {
    if (reply.raw.headersSent) {
      // Part of the response is on the wire; a second one cannot follow.
      // Cut the connection so the client sees a truncated response, not a
      // success (D-ERRORS-07).
      request.log.error({ err: errorForLog(thrown) }, 'error after the response started; connection closed')
      reply.raw.destroy()
      return
    }
    if (thrown instanceof Redirect) {
      reply.code(thrown.statusCode).header('location', thrown.location).send()
      return
    }

    const described = describeError(thrown)
    const { statusCode } = described
    // The route's `fresh` asks for a more recent sign-in (RFC 9470): its challenge
    // in this component's realm, max_age in the body (D-ERRORS-13).
    const maxAge = thrown instanceof ReauthenticateError ? thrown.maxAge : undefined
    if (statusCode >= 500) {
      const err = errorForLog(thrown)
      request.log.error({ err }, err.message)
    } else {
      request.log.info({ statusCode, code: described.code }, redactText(described.message))
    }

    const accept = request.headers.accept
    // D-ERRORS-04: a navigation is a GET or HEAD listing text/html; form POSTs are not (the body would be lost).
    const navigation = (request.method === 'GET' || request.method === 'HEAD') && acceptsHtml(accept)
    const caller = request.scope?.auth ?? null
    // D-ERRORS-15: a signed-in browser refused a page is told who it is and offered to switch account.
    if (opts.login && statusCode === 403 && caller !== null && navigation && !acceptsJson(accept)) {
      applyHeaders(reply, described.headers)
      const detail = described.code === FORBIDDEN ? null : described.message
      const page = { identity: caller.identity, detail, logoutAction: opts.logoutAction, next: safeNextPath(request.url), stylesheet: opts.stylesheet }
      reply.code(403).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(renderForbiddenPage(page))
      return
    }
    let login: string | undefined
    // D-ERRORS-06: never to the login page itself; D-ERRORS-04: a 403 only when anonymous (no loop).
    if (opts.login && pathWithoutQuery(request.url) !== opts.loginPage &&
      (statusCode === 401 || (statusCode === 403 && caller === null))) {
      // D-ERRORS-12: reauth=1 tells the login page the caller is signed in, but too long ago; an anonymous caller just signs in.
      login = loginUrl(opts.loginPage, request.url, maxAge !== undefined && caller !== null)
      if (navigation) {
        // Core's onError hook put the error's challenge on the reply (for apps with their own handler); a redirect carries none.
        reply.removeHeader('www-authenticate')
        reply.code(302).header('location', login).header('cache-control', 'no-store').send()
        return
      }
      if (statusCode !== 401 && described.code !== SCHEME_NOT_ACCEPTED) login = undefined
    }

    applyHeaders(reply, described.headers)
    if (maxAge !== undefined) reply.header('www-authenticate', reauthenticateChallenge(opts.realm, maxAge))
    else if (login !== undefined && statusCode === 401 && !reply.hasHeader('www-authenticate')) reply.header('www-authenticate', defaultChallenge)
    const stack = opts.debug && statusCode >= 500 && thrown instanceof Error ? thrown.stack : undefined

    reply.code(statusCode)
    // D-ERRORS-03.
    if (acceptsHtml(accept) && !acceptsJson(accept)) {
      let text = `${statusCode} ${described.error}: ${described.message}`
      if (login !== undefined) text += `\nSign in at ${login}`
      if (stack !== undefined) text += `\n\n${stack}`
      reply.header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8').send(text)
      return
    }
    const body: Record<string, unknown> = { statusCode }
    if (described.code !== undefined) body.code = described.code
    body.error = described.error
    body.message = described.message
    if (maxAge !== undefined) body.max_age = maxAge
    if (login !== undefined) body.login_url = login
    if (stack !== undefined) body.stack = stack
    // D-ERRORS-02: serialised here, so a route's response schema cannot strip these fields.
    reply.type('application/json; charset=utf-8').send(JSON.stringify(body))
  }

  // If answering an error fails in turn, the caller still gets a bare 500:
  // never Fastify's fallback, which would show Node's internal message (D-ERRORS-09).
  const BARE_500 = JSON.stringify({ statusCode: 500, code: new GATEHOUSE_ERRORS_INTERNAL().code, error: 'Internal Server Error', message: 'Internal Server Error' })
  function sendSafely (thrown: unknown, request: FastifyRequest, reply: FastifyReply): void {
    try {
      send(thrown, request, reply)
    } catch (err) {
      request.log.error({ err: errorForLog(err) }, 'errors: could not answer an error; sending a bare 500')
      if (!reply.raw.headersSent) {
        reply.removeHeader('location')
        reply.code(500).type('application/json; charset=utf-8').send(BARE_500)
      }
    }
  }

  app.setErrorHandler(function gatehouseErrorHandler (error, request, reply) {
    sendSafely(error, request, reply)
  })
  if (opts.notFound) {
    app.setNotFoundHandler(function gatehouseNotFound (request, reply) {
      // D-ERRORS-08: the path, never the query (it may hold secrets).
      // D-ERRORS-10: a coded 404, so clients tell it from an application's own.
      sendSafely(new GATEHOUSE_ERRORS_NOT_FOUND(request.method, redactPath(pathWithoutQuery(request.url))), request, reply)
    })
  }
}
