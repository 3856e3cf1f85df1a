// Transformation components (cache, compression) against bare Fastify, the
// zlib floor and the peer plugins doing the same job.
import { gzipSync } from 'node:zlib'
import Fastify, { type FastifyInstance } from 'fastify'
import fastifyCompress from '@fastify/compress'
import fastifyEtag from '@fastify/etag'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { cachePlugin } from '@fastify-gatehouse/cache'
import { compressionPlugin } from '@fastify-gatehouse/compression'
import type { Scenario } from '../../lib/suite.js'

// The components these recipes name (errors, on by default, as in the other suites).
const components = [errorsPlugin, cachePlugin, compressionPlugin]

const small = { hello: 'world', items: [1, 2, 3] }
// About 20 KB of JSON that compresses like real API output (repeated keys, varied values).
const large = {
  items: Array.from({ length: 320 }, (_, i) => ({ id: i, name: `item-${i}`, price: (i * 37) % 1000, tags: ['a', 'b', `t${i % 7}`] }))
}
const largeJson = JSON.stringify(large)
const gzip = { headers: { 'accept-encoding': 'gzip' } }

/** A route that names this file as what it serves (so cache stats it) and sends small JSON. */
function fileRoute (app: FastifyInstance): void {
  const path = new URL(import.meta.url).pathname
  app.get('/', async (request, reply) => {
    request.scope.filePath = path
    return reply.type('application/json').send(JSON.stringify(small))
  })
}

export const transformScenarios: Record<string, Scenario> = {
  'cache-json': {
    label: 'Gatehouse cache on, small JSON',
    build: async () => {
      const app = Fastify()
      await middlewareChain(app, { middleware: { cache: true } }, { components })
      app.get('/', async () => small)
      return app
    }
  },
  'cache-file': {
    label: 'Gatehouse cache on, a file route (request.scope.filePath), 200',
    build: async () => {
      const app = Fastify()
      await middlewareChain(app, { middleware: { cache: true } }, { components })
      fileRoute(app)
      return app
    }
  },
  'chain-file': {
    label: 'Gatehouse chain without cache, the same file route (reference for the row above)',
    build: async () => {
      const app = Fastify()
      await middlewareChain(app, { middleware: {} }, { components })
      fileRoute(app)
      return app
    }
  },
  'fastify-etag': {
    label: 'peer: @fastify/etag, small JSON',
    build: async () => {
      const app = Fastify()
      await app.register(fastifyEtag)
      app.get('/', async () => small)
      return app
    }
  },
  'bare-20k': {
    label: 'bare Fastify, 20 KB JSON, uncompressed',
    build: async () => {
      const app = Fastify()
      app.get('/', async () => large)
      return app
    },
    request: gzip
  },
  'floor-gzip-20k': {
    label: 'floor: bare Fastify + onSend zlib.gzipSync level 6, 20 KB JSON',
    build: async () => {
      const app = Fastify()
      const options = { level: 6 }
      app.addHook('onSend', (_request, reply, payload, done) => {
        const encoded = gzipSync(payload as string, options)
        reply.header('content-encoding', 'gzip')
        reply.header('vary', 'Accept-Encoding')
        done(null, encoded)
      })
      app.get('/', async () => large)
      return app
    },
    request: gzip
  },
  'gatehouse-gzip-20k': {
    label: 'Gatehouse compression on, 20 KB JSON',
    build: async () => {
      const app = Fastify()
      await middlewareChain(app, { middleware: { compression: true } }, { components })
      app.get('/', async () => large)
      return app
    },
    request: gzip
  },
  'fastify-compress-20k': {
    label: 'peer: @fastify/compress (gzip, level 6), 20 KB JSON',
    build: async () => {
      const app = Fastify()
      await app.register(fastifyCompress, { encodings: ['gzip'], zlibOptions: { level: 6 } })
      app.get('/', async () => large)
      return app
    },
    request: gzip
  }
}

/** The 20 KB body's size, for the suite title. */
export const largeBytes = Buffer.byteLength(largeJson)
