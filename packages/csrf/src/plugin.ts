import type { FastifyPluginAsync } from 'fastify'
import { fastifyCookie } from '@fastify/cookie'
import { credentialCookies } from '@fastify-gatehouse/core'
import { cookieTest } from './carries-cookie.js'
import { crossSiteTest } from './cross-site.js'
import { GATEHOUSE_CSRF_CROSS_SITE } from './errors.js'
import { resolveCsrfOptions, type CsrfOptions } from './options.js'

// D-CSRF-03: RFC 9110 §9.2.1; every other method can change state (WebDAV's too).
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

/**
 * The csrf component's plugin: @fastify/cookie (unless the app has it) and
 * the `onRequest` check.
 */
export const csrf: FastifyPluginAsync<CsrfOptions> = async function csrf (app, options) {
  const { cookieName, allowOrigins } = resolveCsrfOptions(options)
  const isForeign = crossSiteTest(allowOrigins)
  // Cookies are parsed by @fastify/cookie, as the session component reads
  // them: the app's own when registered before, else ours (which the
  // session then shares). Its onRequest hook is added here, before ours (D-CSRF-07).
  if (!app.hasDecorator('parseCookie')) await app.register(fastifyCookie)
  // The session cookie, and the credential cookies other components declare
  // (auth's `jwtCookie`), whether they register before or after this one.
  const carriesSessionCookie = cookieTest(app, cookieName, credentialCookies(app))

  // onRequest, before auth and session: a forged request is refused before
  // it is authenticated or its body is read.
  app.addHook('onRequest', function csrfCheck (request, _reply, done) {
    // D-AUTH-19: with Authorization no ambient session authority is used.
    if (SAFE.has(request.method) || request.headers.authorization !== undefined) {
      done()
      return
    }
    // Without the session cookie a forged request has no ambient authority,
    // unless the route asks to be checked anyway.
    // D-CSRF-04: login CSRF happens before any session exists.
    if (!carriesSessionCookie(request) && request.routeOptions.config.csrf !== 'always') {
      done()
      return
    }
    if (isForeign(request)) {
      done(new GATEHOUSE_CSRF_CROSS_SITE())
      return
    }
    done()
  })
}
