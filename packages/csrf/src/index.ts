import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { csrfOptionsSchema, type CsrfOptions } from './options.js'
import { csrf } from './plugin.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `'always'`: check unsafe requests to this route even without the
     * session cookie (a login form: login CSRF signs the victim in as the
     * attacker, before any session exists).
     */
    csrf?: 'always'
  }
}

/**
 * The csrf component (order 310, off by default; on in AppServer when the
 * login surface is on): one `onRequest` hook refusing (403) unsafe requests
 * that carry the session cookie (as @fastify/cookie parses it, the session
 * component's parser; registered here unless the app has it) and no
 * Authorization header when
 * Sec-Fetch-Site or Origin say they come from another site that is not
 * allowed.
 */
export const csrfPlugin = defineComponent<CsrfOptions>({
  name: 'csrf',
  order: ORDER.csrf,
  schema: csrfOptionsSchema,
  plugin: csrf
})

export default csrfPlugin
export { csrfOptionsSchema, defaults as csrfDefaults, resolveCsrfOptions } from './options.js'
export type { CsrfOptions, ResolvedCsrfOptions } from './options.js'
export type { ListOption } from '@fastify-gatehouse/core'
export { GATEHOUSE_CSRF_CROSS_SITE, GATEHOUSE_CSRF_INVALID_OPTIONS } from './errors.js'
