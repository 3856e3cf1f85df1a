import type { FastifyInstance } from 'fastify'
import { safeNextPath } from '@fastify-gatehouse/core'
import type { Session } from '@fastify-gatehouse/session'
import { GATEHOUSE_SERVER_SESSION_REQUIRED } from '../../errors.js'
import { isBrowserForm } from '../form-body.js'

interface LogoutBody { next?: unknown }
// `next`: the page's "Switch account" (the 403 page): sign in again, then back there.
const LOGOUT_BODY = { type: ['object', 'null'], additionalProperties: false, properties: { next: { type: 'string', maxLength: 2048 } } }

/**
 * `POST /account/logout`: as `POST /logout` (which stays), for any caller
 * (signed in or not: there is nothing to refuse): destroys the session and
 * clears its cookie. A browser form gets 303 to the login page, with the
 * form's `next` (through safeNextPath) when it gives one.
 */
export function registerAccountLogout (app: FastifyInstance, prefix: string): void {
  app.post<{ Body: LogoutBody }>('/account/logout', { schema: { body: LOGOUT_BODY } }, async (request, reply) => {
    const session: Session | undefined = request.scope.session
    if (session === undefined) throw new GATEHOUSE_SERVER_SESSION_REQUIRED()
    session.logout()
    reply.header('cache-control', 'no-store')
    if (isBrowserForm(request.headers)) {
      const next = request.body?.next
      // D-SERVER-35: switch account: sign out, then sign in with the page to come back to.
      const query = next === undefined ? '' : `?next=${encodeURIComponent(safeNextPath(next))}`
      return reply.code(303).header('location', `${prefix}/login_page${query}`).send()
    }
    return { status: 'ok' }
  })
}
