import type { FastifyInstance } from 'fastify'
import { SUPERADMIN } from '@fastify-gatehouse/core'
import { notFound } from '../../errors.js'
import { findSession, listSessions } from './session-list.js'

const identityParam = { type: 'object', required: ['identity'], properties: { identity: { type: 'string', minLength: 1, maxLength: 200 } } }
const sessionParams = {
  type: 'object',
  required: ['identity', 'handle'],
  properties: { identity: identityParam.properties.identity, handle: { type: 'string', maxLength: 64 } }
}

/**
 * SUPERADMIN-only: a user's sessions. `GET /users/:identity/sessions`
 * (the owner's list without `current`), `DELETE
 * /users/:identity/sessions/:handle`, `POST /users/:identity/signout` (all of
 * them, on every instance sharing the store). Any identity that has
 * sessions, in the user store or not (an OIDC sign-in): an identity without
 * any lists none and ends none.
 * D-SERVER-28; no endpoint ends every user's sessions (D-SERVER-29).
 */
export function registerAdminSessions (app: FastifyInstance): void {
  const config = { authRule: SUPERADMIN }
  app.register(async function adminSessions (admin) {
    admin.addHook('onRequest', async (_request, reply) => { reply.header('cache-control', 'no-store') })

    admin.get<{ Params: { identity: string } }>('/users/:identity/sessions', { config, schema: { params: identityParam } }, async (request) => {
      const listed = await listSessions(app.sessionStore, { identity: request.params.identity }, app.sessionSettings, Date.now())
      return { sessions: listed.map(({ current: _current, ...item }) => item) }
    })

    admin.delete<{ Params: { identity: string, handle: string } }>('/users/:identity/sessions/:handle', { config, schema: { params: sessionParams } }, async (request) => {
      const found = await findSession(app.sessionStore, { identity: request.params.identity }, request.params.handle)
      if (found === undefined) throw notFound('No such session')
      await app.sessionStore.destroy(found.key)
      return { status: 'ok' }
    })

    admin.post<{ Params: { identity: string } }>('/users/:identity/signout', { config, schema: { params: identityParam } }, async (request) => {
      return { status: 'ok', sessions_ended: await app.sessionStore.destroyAllFor(request.params.identity) }
    })
  })
}
