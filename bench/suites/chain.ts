import Fastify, { LogController, type FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { loggingPlugin } from '@fastify-gatehouse/logging'
import type { Suite } from '../lib/suite.js'

// The components these recipes name.
const components = [errorsPlugin, loggingPlugin]

const body = { hello: 'world', items: [1, 2, 3] }
// Log lines are written for real (JSON serialisation included) to /dev/null.
const logger = () => pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false })) as FastifyBaseLogger
const quiet = new LogController({ disableRequestLogging: true })

export const suite: Suite = {
  title: 'The chain: core overhead and the access log',
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
      label: 'Gatehouse chain, defaults (scope + errors)',
      build: async () => {
        const app = Fastify()
        await middlewareChain(app, {}, { components })
        app.get('/', async () => body)
        return app
      }
    },
    'fastify-logging': {
      label: "peer: Fastify's own request logging (pino)",
      build: async () => {
        const app = Fastify({ loggerInstance: logger() })
        app.get('/', async () => body)
        return app
      }
    },
    'gatehouse-logging': {
      label: 'Gatehouse chain + logging component (pino)',
      build: async () => {
        const app = Fastify({ loggerInstance: logger(), logController: quiet })
        await middlewareChain(app, { middleware: { logging: true } }, { components })
        app.get('/', async () => body)
        return app
      }
    }
  }
}
