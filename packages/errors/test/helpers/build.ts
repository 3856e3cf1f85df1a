import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import pino from 'pino'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin, type ErrorsOptions } from '@fastify-gatehouse/errors'

export interface LogLine { level: number, msg: string, err?: { message?: string, type?: string }, [key: string]: unknown }

/** A fresh app with the errors component on through the chain, and its captured log lines. */
export { errorsPlugin }

export async function build (options: ErrorsOptions = {}, routes: (app: FastifyInstance) => void = () => {}) {
  const logs: LogLine[] = []
  const logger = pino({ level: 'debug' }, { write: (line: string) => { logs.push(JSON.parse(line) as LogLine) } })
  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger })
  await middlewareChain(app, { middleware: { errors: options as Record<string, unknown> } }, { components: [errorsPlugin] })
  routes(app)
  await app.ready()
  return { app, logs }
}
