import type { FastifyInstance } from 'fastify'
import type { Session } from '@fastify-gatehouse/session'
import { GATEHOUSE_SERVER_SESSION_REQUIRED } from '../../errors.js'
import { isBrowserForm } from '../form-body.js'

/**
 * `POST /account/logout`: as `POST /logout` (which stays), for any caller
 * (signed in or not: there is nothing to refuse): destroys the session and
 * clears its cookie. A browser form gets 303 to the login page.
 */
export function registerAccountLogout (app: FastifyInstance, prefix: string): void {
  app.post('/account/logout', async (request, reply) => {
    const session: Session | undefined = request.scope.session
    if (session === undefined) throw new GATEHOUSE_SERVER_SESSION_REQUIRED()
    session.logout()
    reply.header('cache-control', 'no-store')
    if (isBrowserForm(request.headers)) return reply.code(303).header('location', `${prefix}/login_page`).send()
    return { status: 'ok' }
  })
}
