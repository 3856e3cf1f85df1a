// The compression component's public option types.
import Fastify from 'fastify'
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
  expect(app.get('/on', { config: { compression: true } }, async () => 'x')).type.toRaiseError()
  expect(app.get('/bad', { config: { compression: { level: 3 } } }, async () => 'x')).type.toRaiseError()
})
