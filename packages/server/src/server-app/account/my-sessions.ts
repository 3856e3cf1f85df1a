import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { notFound } from '../../errors.js'
import { isBrowserForm } from '../form-body.js'
import { sessionCaller } from './caller.js'
import { backToAccount } from './form-answer.js'
import { endOtherSessions, findSession, listSessions } from './session-list.js'

// Checked by the handler (isSessionHandle): a malformed handle is a 404 like an unknown one (D-SERVER-27).
export const handleParam = { type: 'object', required: ['handle'], properties: { handle: { type: 'string', maxLength: 64 } } }

/**
 * The caller's own sessions: `GET /account/sessions`, `DELETE
 * /account/sessions/:handle` (JSON), `POST /account/sessions/:handle/revoke`
 * (the form's), `POST /account/sessions/revoke-others`. Ending one or all
 * others needs a sign-in within `freshFor`; ending the caller's own is
 * signing out.
 */
export function registerMySessions (app: FastifyInstance, freshFor: number, prefix: string): void {
  const fresh = { config: { fresh: freshFor } }

  app.get('/account/sessions', async (request) => {
    const { session, identity } = sessionCaller(request)
    return { sessions: await listSessions(app.sessionStore, { identity, via: session.via }, app.sessionSettings, Date.now(), session.handle) }
  })

  async function revoke (request: FastifyRequest<{ Params: { handle: string } }>, reply: FastifyReply): Promise<unknown> {
    const { session, identity } = sessionCaller(request)
    const browser = isBrowserForm(request.headers)
    const { handle } = request.params
    if (handle === session.handle) {
      session.logout()
      if (browser) return reply.code(303).header('location', `${prefix}/login_page`).send()
      return { status: 'ok' }
    }
    const found = await findSession(app.sessionStore, { identity, via: session.via }, handle)
    if (found === undefined) {
      if (browser) return backToAccount(reply, prefix, { error: 'not-found' })
      throw notFound('No such session')
    }
    await app.sessionStore.destroy(found.key)
    if (browser) return backToAccount(reply, prefix, { done: 'session-revoked' })
    return { status: 'ok' }
  }
  app.delete<{ Params: { handle: string } }>('/account/sessions/:handle', { ...fresh, schema: { params: handleParam } }, revoke)
  app.post<{ Params: { handle: string } }>('/account/sessions/:handle/revoke', { ...fresh, schema: { params: handleParam } }, revoke)

  app.post('/account/sessions/revoke-others', fresh, async (request, reply) => {
    const { session, identity } = sessionCaller(request)
    const ended = await endOtherSessions(app.sessionStore, { identity, via: session.via }, session.handle)
    if (isBrowserForm(request.headers)) return backToAccount(reply, prefix, { done: 'others-revoked' }, { ended })
    return { status: 'ok', sessions_ended: ended }
  })
}
