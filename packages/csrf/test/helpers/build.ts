import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { authPlugin } from '@fastify-gatehouse/auth'
import { sessionPlugin } from '@fastify-gatehouse/session'
import { csrfPlugin, type CsrfOptions } from '@fastify-gatehouse/csrf'

export const TOKEN = 'a-static-bearer-token-for-the-csrf-tests'
export const HOST = 'app.example.com'
export const SELF = `http://${HOST}`

/** The components the csrf tests' recipes name. */
export const components = [errorsPlugin, authPlugin, sessionPlugin, csrfPlugin]

interface BuildOptions {
  csrf?: CsrfOptions
  cookieName?: string
  trustProxy?: FastifyServerOptions['trustProxy']
}

/**
 * errors + csrf + auth (a bearer token) + session through the chain; a
 * route that signs in, a session-protected one, and a login-like route
 * marked `csrf: 'always'`.
 */
export async function build ({ csrf = {}, cookieName, trustProxy = false }: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ trustProxy })
  await middlewareChain(app, {
    middleware: {
      csrf: csrf as Record<string, unknown>,
      session: cookieName === undefined ? true : { cookieName }
    },
    authMiddleware: { bearer: { app: { token: TOKEN, tags: 'member' } } }
  }, { components })
  app.post('/signin', async (req) => { req.scope.session!.login('alice', 'member'); return { ok: true } })
  app.post('/login-form', { config: { csrf: 'always' } }, async () => ({ login: true }))
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'OPTIONS'] as const) {
    app.route({ method, url: '/account', config: { authRule: 'member' }, handler: async (req) => ({ method, who: req.scope.auth?.identity ?? null }) })
  }
  await app.ready()
  return app
}

/** Signs in and returns the Cookie header value of the new session. */
export async function signIn (app: FastifyInstance, cookieName = 'session_id'): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/signin', headers: { host: HOST } })
  const line = ([] as string[]).concat(res.headers['set-cookie'] as string | string[]).find((c) => c.startsWith(`${cookieName}=`))
  if (line === undefined) throw new Error('no session cookie')
  return line.split(';')[0]!
}

export const REFUSED = {
  statusCode: 403,
  code: 'GATEHOUSE_CSRF_CROSS_SITE',
  error: 'Forbidden',
  message: 'Cross-site request refused: it carries the session cookie but comes from another origin'
}
