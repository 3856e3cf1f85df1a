import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { cacheOptionsSchema, type CacheOptions } from './options.js'
import { cache } from './plugin.js'

/**
 * The cache component (order 900, off by default): one `onSend` hook that,
 * for 200 responses to GET and HEAD, gives file responses (`request.scope.
 * filePath`, or an `fs.ReadStream` payload) `ETag`, `Last-Modified` and
 * `Cache-Control`, answers the preconditions of RFC 9110 §13 (412 for
 * `If-Match` / `If-Unmodified-Since`, 304 for `If-None-Match` /
 * `If-Modified-Since`) and serves one byte range (`Range`, `If-Range`: 206,
 * 416). It runs before compression (same order, name first).
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
export {
  GATEHOUSE_CACHE_ETAG_UNSUPPORTED, GATEHOUSE_CACHE_FILE_SHRANK, GATEHOUSE_CACHE_INVALID_OPTIONS, GATEHOUSE_CACHE_PRECONDITION_FAILED,
  GATEHOUSE_CACHE_RANGE_NOT_SATISFIABLE
} from './errors.js'
