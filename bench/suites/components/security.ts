import Fastify, { type FastifyInstance } from 'fastify'
import fastifyCors from '@fastify/cors'
import { middlewareChain, type Recipe } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { corsPlugin } from '@fastify-gatehouse/cors'
import { csrfPlugin } from '@fastify-gatehouse/csrf'
import { wellknownPlugin } from '@fastify-gatehouse/wellknown'
import type { Scenario } from '../../lib/suite.js'

// The components these recipes name.
const components = [errorsPlugin, corsPlugin, csrfPlugin, wellknownPlugin]

// The security components, each alone in the chain, on a small JSON route;
// the request is one the component must actually examine.
const body = { hello: 'world', items: [1, 2, 3] }
const ORIGIN = 'https://app.example.com'

async function chained (recipe: Recipe, method: 'GET' | 'POST' = 'GET'): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, recipe, { components })
  app.route({ method, url: '/', handler: async () => body })
  return app
}

export const securityScenarios: Record<string, Scenario> = {
  'gatehouse-cors': {
    label: 'Gatehouse cors (listed origin, echoed)',
    request: { headers: { origin: ORIGIN } },
    build: () => chained({ middleware: { cors: { allowOrigins: [ORIGIN, 'https://admin.example.com'] } } })
  },
  'peer-cors': {
    label: 'peer: @fastify/cors (same origins, onRequest)',
    request: { headers: { origin: ORIGIN } },
    build: async () => {
      const app = Fastify()
      await app.register(fastifyCors, { origin: [ORIGIN, 'https://admin.example.com'], hook: 'onRequest' })
      app.get('/', async () => body)
      return app
    }
  },
  'bare-post': {
    label: 'bare Fastify, POST with cookie and Origin (baseline for csrf)',
    request: { method: 'POST' },
    prepare: async (baseUrl) => ({ origin: baseUrl, cookie: 'theme=dark; session_id=abc' }),
    build: async () => {
      const app = Fastify()
      app.post('/', async () => body)
      return app
    }
  },
  // Same-origin POST with the session cookie and no Sec-Fetch-Site: the
  // longest path (Origin compared with the request's own origin).
  'gatehouse-csrf': {
    label: 'Gatehouse csrf (same-origin POST with the session cookie)',
    request: { method: 'POST' },
    prepare: async (baseUrl) => ({ origin: baseUrl, cookie: 'theme=dark; session_id=abc' }),
    build: () => chained({ middleware: { csrf: true } }, 'POST')
  },
  // What wellknown costs every other request: the dot-path check.
  'gatehouse-wellknown': {
    label: 'Gatehouse wellknown (a normal route; security.txt configured)',
    build: () => chained({ middleware: { wellknown: { documents: { 'security.txt': 'Contact: mailto:security@example.com\nExpires: 2030-01-01T00:00:00Z\n' } } } })
  }
}
