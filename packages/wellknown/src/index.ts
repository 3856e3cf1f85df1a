import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { wellKnownOptionsSchema, type WellKnownOptions } from './options.js'
import { wellknown } from './plugin.js'

/**
 * The wellknown component (order 150, off by default): serves
 * `/.well-known/<name>` from its `documents`, and answers 404 in an
 * `onRequest` hook for every other path whose first segment starts with a
 * dot (`/.env`, `/.git/config`, other well-known names).
 */
export const wellknownPlugin = defineComponent<WellKnownOptions>({
  name: 'wellknown',
  order: ORDER.wellknown,
  schema: wellKnownOptionsSchema,
  plugin: wellknown
})

export default wellknownPlugin
export { defaults as wellknownDefaults, resolveWellKnownOptions, wellKnownOptionsSchema } from './options.js'
export type { ResolvedWellKnownOptions, WellKnownDocument, WellKnownOptions, WellKnownValue } from './options.js'
export { GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT, GATEHOUSE_WELLKNOWN_NOT_FOUND } from './errors.js'
