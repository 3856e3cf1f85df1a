import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { bootWarning, credentialCookiesGuarded, declareCredentialCookie, routeNeedsCaller, type Avatar } from '@fastify-gatehouse/core'
import { announceAccepted } from './anonymous-challenge.js'
import { AuthCore } from './auth-core.js'
import { cookieToken } from './jwt-cookie.js'
import { GATEHOUSE_AUTH_DUPLICATE_AUTHORIZATION } from './errors.js'
import { KNOWN_SECTIONS, type AuthOptions } from './options.js'

// Node's HTTP parser keeps the first Authorization header and drops the
// others (RFC 9110 §5.3: it is not a list header); a proxy in front may keep
// the last one. The raw header list still holds them all (D-AUTH-18).

const NAME = 'authorization'

// ASCII case-insensitive: every character of NAME is a lower-case letter,
// so `| 0x20` folds exactly A–Z onto a–z and nothing else onto a letter.
function isAuthorization (name: string): boolean {
  if (name === 'Authorization' || name === NAME) return true
  for (let i = 0; i < NAME.length; i++) {
    if ((name.charCodeAt(i) | 0x20) !== NAME.charCodeAt(i)) return false
  }
  return true
}

/**
 * Whether `rawHeaders` (`[name, value, name, value, …]`, as on
 * `IncomingMessage`) names `Authorization` more than once, in any case.
 * One pass, no allocation; only names of 13 characters are compared.
 */
function repeatsAuthorization (rawHeaders: readonly string[]): boolean {
  let seen = false
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (name.length === NAME.length && isAuthorization(name)) {
      if (seen) return true
      seen = true
    }
  }
  return false
}

/**
 * The auth component's plugin: builds one {@link AuthCore} at registration
 * (which resolves and checks the options once) and resolves the caller of
 * each request in an `onRequest` hook.
 */
export const authHook: FastifyPluginAsync<AuthOptions> = async function auth (app, options) {
  for (const section of Object.keys(options)) {
    if (!KNOWN_SECTIONS.has(section)) bootWarning(app.log, 'GATEHOUSE_AUTH_UNKNOWN_SECTION', `auth: ignoring unknown section "${section}"`)
  }
  const core = await AuthCore.create(options)
  announceAccepted(app, core, options.challengeAnonymous ?? false)
  const { jwtCookie } = options
  // The cookie gives ambient authority, as the session cookie does: csrf checks it (D-CSRF-09).
  if (jwtCookie !== undefined) {
    declareCredentialCookie(app, jwtCookie)
    // Without csrf a cross-site form post carries the cookie unchecked (D-CSRF-09).
    app.addHook('onReady', async function warnUnguardedCookie () {
      if (!credentialCookiesGuarded(app)) {
        bootWarning(app.log, 'GATEHOUSE_AUTH_UNGUARDED_COOKIE', `auth: jwtCookie "${jwtCookie}" authenticates requests that another site can make the browser send; register the csrf component, or give the cookie SameSite=Strict and check Origin yourself`)
      }
    })
  }

  app.addHook('onRequest', function authenticate (request, _reply, done) {
    const header = request.headers.authorization
    if (header === undefined) {
      if (jwtCookie === undefined) {
        done()
        return
      }
      fromCookie(request, jwtCookie, done)
      return
    }
    if (repeatsAuthorization(request.raw.rawHeaders)) {
      done(new GATEHOUSE_AUTH_DUPLICATE_AUTHORIZATION())
      return
    }
    let caller: Avatar | Promise<Avatar>
    try {
      caller = core.authenticate(header, request)
    } catch (err) {
      done(err as Error)
      return
    }
    settle(request, caller, done)
  })

  // The JWT cookie, read only without an Authorization header. An expired
  // token on a route that needs no caller leaves the request anonymous (a
  // browser keeps a stale cookie; open pages must still open); anywhere
  // else a refused cookie token is the 401 a header token gets (D-AUTH-53).
  function fromCookie (request: FastifyRequest, name: string, done: (err?: Error) => void): void {
    const token = cookieToken(app, request, name)
    if (token === undefined) {
      done()
      return
    }
    let caller: Avatar | null | Promise<Avatar | null>
    try {
      caller = core.authenticateJwt(token, request, !routeNeedsCaller(request.routeOptions.config))
    } catch (err) {
      done(err as Error)
      return
    }
    settle(request, caller, done)
  }
}

// The caller on the request, at once when known, else when the promise settles.
// AuthCore answers an Avatar, null or a native Promise: a store's or a
// callback's thenable is wrapped in one where it is called (callOut,
// D-CORE-04), so `instanceof` is the whole test.
function settle (request: FastifyRequest, caller: Avatar | null | Promise<Avatar | null>, done: (err?: Error) => void): void {
  if (!(caller instanceof Promise)) {
    request.scope.auth = caller
    done()
    return
  }
  caller.then((avatar) => {
    request.scope.auth = avatar
    done()
  }, done)
}
