import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import type { Suite } from '../lib/suite.js'
import { securityScenarios } from './components/security.js'
import { largeBytes, transformScenarios } from './components/transform.js'

// The components these recipes name.
const components = [errorsPlugin]

// Every HTTP component measured in one run: each alone in the chain against
// bare Fastify and the peer plugin doing the same job. The 20 KB gzip rows
// compare with their own baseline (bare-20k) and the zlib.gzipSync floor.
const small = { hello: 'world', items: [1, 2, 3] }

export const suite: Suite = {
  title: `HTTP components: cors, csrf, wellknown, cache (small JSON) and gzip of a ${(largeBytes / 1024).toFixed(1)} KB JSON body`,
  baseline: 'bare',
  scenarios: {
    bare: {
      label: 'bare Fastify, small JSON',
      build: async () => {
        const app = Fastify()
        app.get('/', async () => small)
        return app
      }
    },
    chain: {
      label: 'Gatehouse chain, defaults (scope + errors), for reference',
      build: async () => {
        const app = Fastify()
        await middlewareChain(app, {}, { components })
        app.get('/', async () => small)
        return app
      }
    },
    ...securityScenarios,
    ...transformScenarios
  }
}
