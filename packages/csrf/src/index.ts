import type { FastifyPluginAsync } from 'fastify'
import { fastifyCookie } from '@fastify/cookie'
import { defineComponent } from '@fastify-gatehouse/core'
import { cookieTest } from './carries-cookie.js'
import { crossSiteTest } from './cross-site.js'
import { GATEHOUSE_CSRF_CROSS_SITE } from './errors.js'
import { csrfOptionsSchema, resolveCsrfOptions, type CsrfOptions } from './options.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `'always'`: check unsafe requests to this route even without the
     * session cookie (a login form: login CSRF signs the victim in as the
     * attacker, before any session exists).
     */
    csrf?: 'always'
  }
}

// D-CSRF-03: RFC 9110 §9.2.1; every other method can change state (WebDAV's too).
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

const csrf: FastifyPluginAsync<CsrfOptions> = async function csrf (app, options) {
  const { cookieName, allowOrigins } = resolveCsrfOptions(options)
  const isForeign = crossSiteTest(allowOrigins)
  // Cookies are parsed by @fastify/cookie, as the session component reads
  // them: the app's own when registered before, else ours (which the
  // session then shares). Its onRequest hook is added here, before ours (D-CSRF-07).
  if (!app.hasDecorator('parseCookie')) await app.register(fastifyCookie)
  const carriesSessionCookie = cookieTest(app, cookieName)

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

/**
 * The csrf component (order 310, off by default; on in AppServer when the
 * login surface is on): one `onRequest` hook refusing (403) unsafe requests
 * that carry the session cookie (as @fastify/cookie parses it, the session
 * component's parser; registered here unless the app has it) and no
 * Authorization header when
 * Sec-Fetch-Site or Origin say they come from another site that is not
 * allowed.
 */
export const csrfPlugin = defineComponent<CsrfOptions>({
  name: 'csrf',
  order: 310,
  schema: csrfOptionsSchema,
  plugin: csrf
})

export default csrfPlugin
export { csrfOptionsSchema, defaults as csrfDefaults, resolveCsrfOptions } from './options.js'
export type { CsrfOptions, ResolvedCsrfOptions } from './options.js'
export type { ListOption } from '@fastify-gatehouse/core'
export { GATEHOUSE_CSRF_CROSS_SITE, GATEHOUSE_CSRF_INVALID_OPTIONS } from './errors.js'
