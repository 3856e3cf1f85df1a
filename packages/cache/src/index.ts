import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { cacheOptionsSchema, type CacheOptions } from './options.js'
import { cache } from './plugin.js'

/**
 * The cache component (order 900, off by default): one `onSend` hook that,
 * for 200 responses to GET and HEAD, gives file responses (`request.scope.
 * filePath`, or an `fs.ReadStream` payload) `ETag`, `Last-Modified` and
 * `Cache-Control`, and answers `If-None-Match` / `If-Modified-Since` with a
 * 304 (RFC 9110 §13). It runs before compression (same order, name first).
 * D-CHAIN-02: equal orders are one layer ordered by name, so cache runs before compression.
 */
export const cachePlugin = defineComponent<CacheOptions>({
  name: 'cache',
  order: ORDER.cache,
  schema: cacheOptionsSchema,
  plugin: cache
})

export default cachePlugin
export { defaults as cacheDefaults, cacheOptionsSchema } from './options.js'
export type { CacheOptions, EtagMode, ResolvedCacheOptions } from './options.js'
export { GATEHOUSE_CACHE_ETAG_UNSUPPORTED, GATEHOUSE_CACHE_INVALID_OPTIONS } from './errors.js'
