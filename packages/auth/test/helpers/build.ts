import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { authPlugin, type AuthOptions } from '@fastify-gatehouse/auth'

export { authPlugin }

/** The components the auth tests' recipes name. */
export const components = [errorsPlugin, authPlugin]

/** An app with errors + auth through the chain, an open route and protected ones. */
export async function build (options: AuthOptions, routes: (app: FastifyInstance) => void = () => {}): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, { authMiddleware: options as Record<string, unknown> }, { components })
  app.get('/open', async (req) => ({ open: true, caller: req.scope.auth }))
  app.get('/me', { authRule: 'admin|ops|reader' }, async (req) => req.scope.auth)
  app.get('/admin', { authRule: 'admin' }, async (req) => ({ admin: req.scope.auth?.identity }))
  routes(app)
  await app.ready()
  return app
}

export const basicHeader = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`
