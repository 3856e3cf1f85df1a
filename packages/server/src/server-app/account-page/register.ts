import type { FastifyInstance } from 'fastify'
import { isFresh } from '@fastify-gatehouse/core'
import type { ResolvedPasswordPolicy } from '@fastify-gatehouse/auth'
import { notSignedIn } from '../../errors.js'
import { isSessionCaller } from '../account/caller.js'
import { listSessions } from '../account/session-list.js'
import { PAGE_HEADERS } from '../html.js'
import { ACCOUNT_JS } from './assets.js'
import { accountMessage, type AccountQuery } from './messages.js'
import { renderAccountPage } from './render.js'

/** What the account page needs from the `_server` app. */
export interface AccountPageContext {
  /** Seconds since sign-in within which the password change and the revocations are allowed (the account's `freshFor`). */
  readonly freshFor: number
  /** There is a password login (the password change endpoint exists). */
  readonly passwordChange: boolean
  readonly policy: ResolvedPasswordPolicy
}

/**
 * `GET /account`: the account page, for any signed-in caller (anonymous: 401
 * `GATEHOUSE_SERVER_NOT_SIGNED_IN`, which sends a browser to the login
 * page and back), and its script `GET /account.js`.
 */
export function registerAccountPage (app: FastifyInstance, context: AccountPageContext): void {
  const prefix = app.prefix
  app.get<{ Querystring: AccountQuery }>('/account', async (request, reply) => {
    const auth = request.scope.auth
    if (auth === null) throw notSignedIn()
    const now = Date.now()
    const session = isSessionCaller(request) ? request.scope.session! : undefined
    const signedInAt = session?.signedInAt ?? null
    const sessions = session === undefined ? [] : await listSessions(app.sessionStore, { identity: auth.identity, via: session.via }, app.sessionSettings, now, session.handle)
    const page = renderAccountPage({
      prefix,
      identity: auth.identity,
      tags: auth.tags,
      backend: auth.backend,
      session: session === undefined || signedInAt === null ? null : { via: session.via, signedInAt },
      // The test core's `fresh` route option makes on the account endpoints, so page and endpoints agree.
      fresh: isFresh(auth, context.freshFor, now),
      freshFor: context.freshFor,
      passwordChange: context.passwordChange && session?.via === 'password',
      policy: context.policy,
      sessions,
      message: accountMessage(request.query, context.policy)
    })
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page)
  })
  app.get('/account.js', async (_request, reply) => reply.header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(ACCOUNT_JS))
}
