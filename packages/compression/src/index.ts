import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { compressionOptionsSchema, type CompressionOptions } from './options.js'
import { compression } from './plugin.js'

/**
 * The compression component (order 900, off by default): one `onSend` hook
 * that gzip-encodes (or Brotli, when offered) compressible bodies of at
 * least `minimumSize` bytes when Accept-Encoding allows it and the result
 * is smaller. Runs after cache (same order, name first), so a 304 is
 * decided before any body is compressed.
 * D-COMPRESSION-01: our own onSend hook on node:zlib, not @fastify/compress. D-CHAIN-02: after cache.
 */
export const compressionPlugin = defineComponent<CompressionOptions>({
  name: 'compression',
  order: ORDER.compression,
  schema: compressionOptionsSchema,
  plugin: compression
})

export default compressionPlugin
export { defaults as compressionDefaults, compressionOptionsSchema } from './options.js'
export type { CompressionOptions, Encoding, ResolvedCompressionOptions } from './options.js'
export { GATEHOUSE_COMPRESSION_INVALID_OPTIONS } from './errors.js'
