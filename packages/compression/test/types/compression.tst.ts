// The compression component's public option types.
import Fastify, { type FastifyContextConfig } from 'fastify'
import { expect, test } from 'tstyche'
import { compressionPlugin, type CompressionOptions } from '@fastify-gatehouse/compression'

const app = Fastify()

test('CompressionOptions and app.register(compressionPlugin, …)', () => {
  expect({ minimumSize: 1024, compressionLevel: 9, encodings: ['br' as const, 'gzip' as const] }).type.toBeAssignableTo<CompressionOptions>()
  expect({ encodings: ['deflate' as const], noCompressionHeader: true, requestDecompression: { encodings: ['gzip' as const], maxSize: 1024 } }).type.toBeAssignableTo<CompressionOptions>()
  expect({ encodings: ['zstd' as const] }).type.not.toBeAssignableTo<CompressionOptions>()
  expect({ requestDecompression: { limit: 1 } }).type.not.toBeAssignableTo<CompressionOptions>()
  app.register(compressionPlugin, { encodings: ['gzip'] })
  expect(app.register(compressionPlugin, { level: 9 })).type.toRaiseError()
})

test('config.compression on a route: false or route options', () => {
  app.get('/off', { config: { compression: false } }, async () => 'x')
  app.get('/own', { config: { compression: { minimumSize: 10, encodings: ['br'], requestDecompression: true } } }, async () => 'x')
  // app.get infers its own ContextConfig from the literal and intersects it
  // with ours, so a wrong value there gets past the compiler: the boot check
  // (GATEHOUSE_COMPRESSION_INVALID_ROUTE_OPTIONS) is what refuses it. The declared type itself is strict:
  expect({ compression: false as const }).type.toBeAssignableTo<FastifyContextConfig>()
  expect({ compression: { compressionLevel: 3, requestDecompression: { maxSize: 10 } } }).type.toBeAssignableTo<FastifyContextConfig>()
  expect({ compression: true }).type.not.toBeAssignableTo<FastifyContextConfig>()
  expect({ compression: { level: 3 } }).type.not.toBeAssignableTo<FastifyContextConfig>()
  expect({ compression: { encodings: ['zstd' as const] } }).type.not.toBeAssignableTo<FastifyContextConfig>()
})
