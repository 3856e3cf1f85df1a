import type { FastifyInstance } from 'fastify'

/**
 * A Fastify instance whatever its server, logger and type provider: the
 * entry points take any (an app built with a pino `loggerInstance` has a
 * different logger type from the default).
 */
export type AnyFastifyInstance = FastifyInstance<any, any, any, any, any>
