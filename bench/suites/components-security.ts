import Fastify from 'fastify'
import { middlewareChain } from '@gatehouse/core'
import '@gatehouse/errors'
import type { Suite } from '../lib/suite.js'
import { securityScenarios } from './components/security.js'

const body = { hello: 'world', items: [1, 2, 3] }

export const suite: Suite = {
  title: 'Components: cors, csrf, wellknown against bare Fastify and @fastify/cors',
  baseline: 'bare',
  scenarios: {
    bare: {
      label: 'bare Fastify',
      build: async () => {
        const app = Fastify()
        app.get('/', async () => body)
        return app
      }
    },
    chain: {
      label: 'Gatehouse chain, defaults (scope + errors), for reference',
      build: async () => {
        const app = Fastify()
        await middlewareChain(app)
        app.get('/', async () => body)
        return app
      }
    },
    ...securityScenarios
  }
}
