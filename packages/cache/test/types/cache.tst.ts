// The cache component's public option types.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import { cachePlugin, type CacheOptions } from '@fastify-gatehouse/cache'

const app = Fastify()

test('CacheOptions and app.register(cachePlugin, …)', () => {
  expect({ maxAge: 60, public: false, immutable: true, etag: 'content' as const }).type.toBeAssignableTo<CacheOptions>()
  expect({ etag: 'strong' as const }).type.not.toBeAssignableTo<CacheOptions>()
  expect({ etag: 'content' as const, etagAlgorithm: 'fnv1a', weakEtags: true, acceptRanges: false }).type.toBeAssignableTo<CacheOptions>()
  expect({ weakEtags: 'yes' }).type.not.toBeAssignableTo<CacheOptions>()
  expect({ acceptRanges: 1 }).type.not.toBeAssignableTo<CacheOptions>()
  app.register(cachePlugin, { etag: 'file' })
  expect(app.register(cachePlugin, { maxAge: '1h' })).type.toRaiseError()
  expect(app.register(cachePlugin, { sMaxAge: 60 })).type.toRaiseError()
})
