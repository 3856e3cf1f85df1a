import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain, type Recipe } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { authPlugin } from '@fastify-gatehouse/auth'
import { corsPlugin, type CorsOptions } from '@fastify-gatehouse/cors'

export const TOKEN = 'a-static-bearer-token-for-the-cors-tests'

/**
 * An app with errors + cors (+ auth when `withAuth`) through the chain:
 * an open route, protected ones (`authRule: 'reader'`, OPTIONS /guarded
 * among them), one that throws.
 */
export async function build (cors: CorsOptions = {}, { withAuth = false } = {}): Promise<FastifyInstance> {
  const app = Fastify()
  const recipe: Recipe = { middleware: { cors: cors as Record<string, unknown> } }
  if (withAuth) recipe.authMiddleware = { bearer: { app: { token: TOKEN, tags: 'reader' } } }
  await middlewareChain(app, recipe, { components: [errorsPlugin, authPlugin, corsPlugin] })
  app.get('/open', async () => ({ open: true }))
  app.post('/open', async () => ({ posted: true }))
  app.get('/private', { authRule: 'reader' }, async () => ({ secret: 42 }))
  app.delete('/private', { authRule: 'reader' }, async () => ({ deleted: true }))
  // An OPTIONS route of its own behind a rule: a preflight answered by cors
  // is a 204 here only because cors answers before the rule is checked.
  app.options('/guarded', { authRule: 'reader' }, async () => ({ optionsHandler: true }))
  app.get('/boom', async () => { throw new Error('internal detail') })
  app.get('/no-cors', { config: { cors: false } }, async () => ({ plain: true }))
  await app.ready()
  return app
}

/** The Access-Control-* headers of a response (lower-cased names). */
export function corsHeaders (res: { headers: Record<string, unknown> }): Record<string, unknown> {
  return Object.fromEntries(Object.entries(res.headers).filter(([name]) => name.startsWith('access-control-')))
}

/** A log line as pino writes it. */
export interface LogLine { level: number, msg: string, err?: { message: string } }

/**
 * A bare Fastify app (logging at `level` into `lines`) with cors registered
 * alone; `routes` declares the routes after it.
 */
export async function withLog (cors: CorsOptions, routes: (app: FastifyInstance) => void = () => {}, level = 'warn'): Promise<{ app: FastifyInstance, lines: LogLine[] }> {
  const lines: LogLine[] = []
  const app = Fastify({ logger: { level, stream: { write: (line: string) => { lines.push(JSON.parse(line) as LogLine) } } } })
  await app.register(corsPlugin, cors)
  routes(app)
  await app.ready()
  return { app, lines }
}
