import type { FastifyPluginAsync } from 'fastify'
import { Avatar, HttpError } from '@fastify-gatehouse/core'
import { announceAccepted } from './anonymous-challenge.js'
import { AuthCore } from './auth-core.js'
import { repeatsAuthorization } from './duplicate-authorization.js'
import { DUPLICATE_AUTHORIZATION } from './errors.js'
import { KNOWN_SECTIONS, type AuthOptions } from './options.js'

/**
 * The auth component's plugin: builds one {@link AuthCore} at registration
 * (which resolves and checks the options once) and resolves the caller of
 * each request in an `onRequest` hook.
 */
export const authHook: FastifyPluginAsync<AuthOptions> = async function auth (app, options) {
  for (const section of Object.keys(options)) {
    if (!KNOWN_SECTIONS.has(section)) app.log.warn(`auth: ignoring unknown section "${section}"`)
  }
  const core = await AuthCore.create(options)
  announceAccepted(app, core, options.challengeAnonymous ?? false)

  app.addHook('onRequest', function authenticate (request, _reply, done) {
    const header = request.headers.authorization
    if (header === undefined) {
      done()
      return
    }
    if (repeatsAuthorization(request.raw.rawHeaders)) {
      done(new HttpError(400, 'Send one Authorization header, not several', { code: DUPLICATE_AUTHORIZATION }))
      return
    }
    let caller: Avatar | Promise<Avatar>
    try {
      caller = core.authenticate(header, request)
    } catch (err) {
      done(err as Error)
      return
    }
    if (caller instanceof Avatar) {
      request.scope.auth = caller
      done()
      return
    }
    caller.then((avatar) => {
      request.scope.auth = avatar
      done()
    }, done)
  })
}
