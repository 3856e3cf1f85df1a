import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions, type FastifyPluginAsync, type onRequestHookHandler } from 'fastify'
import cookie from '@fastify/cookie'
import { authPlugin, type AuthOptions } from '@fastify-gatehouse/auth'
import { corsPlugin } from '@fastify-gatehouse/cors'
import { compressionPlugin } from '@fastify-gatehouse/compression'

/** Which Gatehouse components the app has adopted so far: each is one `app.register`. */
export interface Adopted {
  auth?: AuthOptions
  cors?: boolean
  compression?: boolean
}

/** The app's own answer to errors, kept as it was: Gatehouse's errors reach it like any other. */
export function appErrorHandler (error: FastifyError, _request: unknown, reply: { status: (code: number) => { send: (body: unknown) => unknown } }): unknown {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode <= 599 ? error.statusCode : 500
  return reply.status(status).send({
    error: { status, code: error.code ?? 'INTERNAL', message: status < 500 ? error.message : 'Something went wrong on our side' }
  })
}

/** The app's old guard for /reports, before Gatehouse: one shared header token, checked by hand. */
function ownTokenGuard (token: string): onRequestHookHandler {
  return function requireReportsToken (request, _reply, done) {
    if (request.headers['x-reports-token'] !== token) {
      done(Object.assign(new Error('A reports token is required'), { statusCode: 401, code: 'NO_REPORTS_TOKEN' }))
      return
    }
    done()
  }
}

/** A report big enough to be worth compressing: 400 rows, about 20 KB of JSON. */
export function quarterlyReport (): { rows: Array<{ id: number, region: string, revenue: number, note: string }> } {
  const regions = ['north', 'south', 'east', 'west']
  return {
    rows: Array.from({ length: 400 }, (_, id) => ({ id, region: regions[id % 4]!, revenue: (id * 7919) % 100_000, note: `quarter ${1 + (id % 4)} figures` }))
  }
}

/**
 * The app's routes, in their own plugin as most apps keep them: Fastify
 * loads it after the plugins registered before it, so the routes see the
 * hooks Gatehouse adds (its route rules are compiled as routes are added).
 */
function routes (adopted: Adopted, reportsToken: string): FastifyPluginAsync {
  return async function appRoutes (app) {
    app.get('/health', async () => ({ ok: true }))

    // @fastify/cookie, the app's own: Gatehouse leaves its cookies alone.
    app.get('/theme', async (request, reply) => {
      const theme = request.cookies.theme ?? 'light'
      reply.setCookie('theme', theme === 'light' ? 'dark' : 'light', { path: '/', httpOnly: true, sameSite: 'lax' })
      return { theme }
    })

    // Before auth was adopted the route checked a token by hand; after, a route rule says who may call it.
    app.get('/reports', adopted.auth === undefined ? { onRequest: ownTokenGuard(reportsToken) } : { config: { authRule: 'reports' } }, async (request) => ({
      for: request.scope?.auth?.identity ?? 'reports-token holder',
      ...quarterlyReport()
    }))

    app.get('/me', { config: adopted.auth === undefined ? {} : { authRule: 'staff' } }, async (request) => ({ identity: request.scope?.auth?.identity ?? null }))

    app.post<{ Body: { text?: unknown } }>('/notes', async (request, reply) => {
      if (typeof request.body?.text !== 'string') throw Object.assign(new Error('A note needs a text'), { statusCode: 400, code: 'NOTE_TEXT' })
      return reply.status(201).send({ saved: request.body.text })
    })
  }
}

/**
 * The existing app: a plain Fastify app with its own routes, cookie plugin
 * and error handler, and whichever Gatehouse components it has adopted,
 * each one `app.register` before the routes.
 */
export async function buildApp (adopted: Adopted = {}, options: { reportsToken?: string, logger?: FastifyServerOptions['logger'] } = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false })
  await app.register(cookie)
  app.setErrorHandler(appErrorHandler)

  // The components were adopted one at a time (auth, then cors, then
  // compression) but are registered in their own order: Fastify runs hooks
  // in registration order, and cors must see a request before auth can
  // refuse it, or the refusal reaches the front end without CORS headers
  // (a boot warning says so when the order is wrong).
  // Step 2: CORS for the browser front end on another origin.
  if (adopted.cors === true) await app.register(corsPlugin, { allowOrigins: ['https://app.example.test'], allowCredentials: true })
  // Step 1: authentication (Basic, bearer tokens, JWTs, API keys) in place of the hand-written guard.
  if (adopted.auth !== undefined) await app.register(authPlugin, adopted.auth)
  // Step 3: compression of the large answers.
  if (adopted.compression === true) await app.register(compressionPlugin, { encodings: ['br', 'gzip'] })

  await app.register(routes(adopted, options.reportsToken ?? 'reports-token-of-old'))
  return app
}
