// The compression component's public option types.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import { compressionPlugin, type CompressionOptions } from '@fastify-gatehouse/compression'

const app = Fastify()

test('CompressionOptions and app.register(compressionPlugin, …)', () => {
  expect({ minimumSize: 1024, compressionLevel: 9, encodings: ['br' as const, 'gzip' as const] }).type.toBeAssignableTo<CompressionOptions>()
  expect({ encodings: ['deflate' as const] }).type.not.toBeAssignableTo<CompressionOptions>()
  app.register(compressionPlugin, { encodings: ['gzip'] })
  expect(app.register(compressionPlugin, { level: 9 })).type.toRaiseError()
})
