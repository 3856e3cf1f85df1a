import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { compressionOptionsSchema, type CompressionOptions } from './options.js'
import { compression } from './plugin.js'

/**
 * The compression component (order 900, off by default): one `onSend` hook
 * that gzip-encodes (or Brotli or deflate, when offered) compressible bodies
 * of at least `minimumSize` bytes when Accept-Encoding allows it and the
 * result is smaller; per-route settings in `config.compression`; request
 * bodies decoded before parsing when `requestDecompression` is on. Runs
 * after cache (same order, name first), so a 304 is decided before any
 * body is compressed.
 * D-COMPRESSION-01: our own onSend hook on node:zlib, not @fastify/compress. D-CHAIN-02: after cache.
 */
export const compressionPlugin = defineComponent<CompressionOptions>({
  name: 'compression',
  order: ORDER.compression,
  schema: compressionOptionsSchema,
  plugin: compression
})

export default compressionPlugin
export { defaults as compressionDefaults, compressionOptionsSchema, requestDecompressionDefaults, routeCompressionOptionsSchema } from './options.js'
export type {
  CompressionOptions,
  Encoding,
  RequestDecompressionOptions,
  RequestEncoding,
  ResolvedCompressionOptions,
  ResolvedRequestDecompression,
  RouteCompressionOptions
} from './options.js'
// The `config.compression` route option (declaration merging into Fastify's types).
export type {} from './route-config.js'
export {
  BODY_TOO_LARGE,
  GATEHOUSE_COMPRESSION_BODY_TOO_LARGE,
  GATEHOUSE_COMPRESSION_INVALID_BODY,
  GATEHOUSE_COMPRESSION_INVALID_OPTIONS,
  GATEHOUSE_COMPRESSION_INVALID_ROUTE_OPTIONS,
  GATEHOUSE_COMPRESSION_UNSUPPORTED_ENCODING,
  INVALID_BODY,
  UNSUPPORTED_ENCODING
} from './errors.js'
