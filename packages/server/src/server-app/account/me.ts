import type { FastifyInstance } from 'fastify'
import { isSessionCaller } from './caller.js'

/**
 * `GET /account/me`: who the caller is, for any signed-in caller (a
 * session, Basic, a token, an API key). `session` describes the caller's
 * session when they are signed in with one (last seen: now, this request),
 * else null.
 */
export function registerMe (app: FastifyInstance): void {
  app.get('/account/me', async (request) => {
    const auth = request.scope.auth!
    const session = request.scope.session
    const signedInAt = isSessionCaller(request) ? session?.signedInAt ?? null : null
    const at = signedInAt === null ? null : new Date(signedInAt).toISOString()
    return {
      identity: auth.identity,
      tags: auth.tags,
      backend: auth.backend,
      session: at === null
        ? null
        : { handle: session!.handle, signed_in_at: at, created_at: at, last_seen_at: new Date().toISOString() }
    }
  })
}
