import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { loggingOptionsSchema, type LoggingOptions } from './options.js'
import { logging } from './plugin.js'

/**
 * The logging component (order 200, off by default): one access line when a
 * request comes in (`onRequest`) and one when its response is done
 * (`onResponse`), through a pino child logger of Fastify's logger.
 */
export const loggingPlugin = defineComponent<LoggingOptions>({
  name: 'logging',
  order: ORDER.logging,
  schema: loggingOptionsSchema,
  plugin: logging
})

export default loggingPlugin
export { clientErrorHandler } from './client-error.js'
export { RedactingLogController } from './redacting-log-controller.js'
export { defaults as loggingDefaults, loggingOptionsSchema } from './options.js'
export type { AccessLogLevel, LoggingOptions, ResolvedLoggingOptions } from './options.js'
