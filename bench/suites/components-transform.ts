import Fastify from 'fastify'
import type { Suite } from '../lib/suite.js'
import { largeBytes, transformScenarios } from './components/transform.js'

const small = { hello: 'world', items: [1, 2, 3] }

export const suite: Suite = {
  title: `Transformation components: cache (small JSON) and gzip of a ${(largeBytes / 1024).toFixed(1)} KB JSON body`,
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
    ...transformScenarios
  }
}
