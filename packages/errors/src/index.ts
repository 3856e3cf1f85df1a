import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { errorsOptionsSchema, type ErrorsOptions } from './options.js'
import { errors } from './plugin.js'

/**
 * The errors component (order 100, on by default): the one place where
 * errors become responses. Sets the error handler and the not-found handler
 * of the instance it is registered on.
 */
export const errorsPlugin = defineComponent<ErrorsOptions>({
  name: 'errors',
  order: ORDER.errors,
  default: true,
  schema: errorsOptionsSchema,
  plugin: errors
})

export default errorsPlugin
export { acceptsHtml } from './accept.js'
export { loginUrl } from './login-url.js'
export { defaults as errorsDefaults, errorsOptionsSchema } from './options.js'
export type { ErrorsOptions, ResolvedErrorsOptions } from './options.js'
export { GATEHOUSE_ERRORS_INTERNAL, GATEHOUSE_ERRORS_NOT_FOUND } from './errors.js'
