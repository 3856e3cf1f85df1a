// The auth component's public option types.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import { authPlugin, MemoryApiKeyStore, type ApiKeyStore, type AuthOptions } from '@fastify-gatehouse/auth'

const app = Fastify()

test('AuthOptions: basic, bearer, apiKeys, realm, caches', () => {
  expect<{}>().type.toBeAssignableTo<AuthOptions>()
  expect({
    basic: { alice: { password: 'secret', tags: 'admin' }, bob: { passwordHash: 'scrypt$…', tags: ['ops'] } },
    bearer: { ci: { token: 'abc', tags: 'deploy' } },
    realm: 'shop',
    basicCache: { max: 10 },
    jwtCache: { ttl: 60 }
  }).type.toBeAssignableTo<AuthOptions>()
  expect({ bearer: { ci: { tags: 'deploy' } } }).type.not.toBeAssignableTo<AuthOptions>()
  expect({ basic: { alice: { password: 1 } } }).type.not.toBeAssignableTo<AuthOptions>()
  expect({ realm: 1 }).type.not.toBeAssignableTo<AuthOptions>()
  expect<MemoryApiKeyStore>().type.toBeAssignableTo<ApiKeyStore>()
})

test('app.register(authPlugin, …) checks the options', () => {
  app.register(authPlugin, { basic: { alice: { password: 'secret' } }, apiKeys: new MemoryApiKeyStore() })
  expect(app.register(authPlugin, { basics: {} })).type.toRaiseError()
  expect(app.register(authPlugin, { apiKeys: 'file.json' })).type.toRaiseError()
})
