import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { HttpError, middlewareChain } from '@gatehouse/core'
// Importing a component package adds the component to the registry.
import '@gatehouse/errors'
import '@gatehouse/logging'

/** Builds the demo app: the chain with errors and logging on, then the routes. */
export async function buildDemo (options: Pick<FastifyServerOptions, 'logger' | 'loggerInstance'> = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...options,
    // The logging component writes the access lines; Fastify's own request
    // lines would repeat them (and log full URLs, query strings included).
    logController: new LogController({ disableRequestLogging: true })
  })

  await middlewareChain(app, {
    middleware: {
      errors: { debug: process.env.GATEHOUSE_DEBUG === '1' },
      logging: { includeQuery: true }
    }
  })

  app.get('/', async () => ({
    service: 'gatehouse demo',
    routes: { 'GET /': 'this page', 'GET /boom': 'throws: see the 500 and the ERROR access line', 'GET /teapot': 'an HttpError' }
  }))
  app.get('/boom', async () => {
    throw new Error('the demo route failed on purpose')
  })
  app.get('/teapot', async () => {
    throw new HttpError(418, 'This server brews tea only')
  })
  return app
}
