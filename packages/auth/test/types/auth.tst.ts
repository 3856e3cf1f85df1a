// The auth component's public option types.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import { authPlugin, MemoryApiKeyStore, MemoryUserStore, type ApiKeyStore, type AuthOptions } from '@fastify-gatehouse/auth'

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

test('issue 17: basic from a store or a function, bearer.auth, bearerType, bearerCase, challengeAnonymous', () => {
  expect({ basic: { users: new MemoryUserStore() } }).type.toBeAssignableTo<AuthOptions>()
  expect({ basic: { validate: async (identity: string, password: string) => identity === password ? 'admin' : null } }).type.toBeAssignableTo<AuthOptions>()
  expect({ bearer: { auth: (token: string) => token === 'x' ? ['deploy'] : null } }).type.toBeAssignableTo<AuthOptions>()
  expect({ bearerType: 'Token', bearerCase: 'exact' as const, challengeAnonymous: true, basicConcurrency: 8, basicLockout: { maxAttempts: 5 } }).type.toBeAssignableTo<AuthOptions>()
  expect({ bearerCase: 'rfc6750' as const }).type.not.toBeAssignableTo<AuthOptions>()
  expect({ basic: { validate: (identity: string) => identity.length } }).type.not.toBeAssignableTo<AuthOptions>()
  app.get('/x', { authRule: 'admin', config: { challengeAnonymous: true } }, async () => 'x')
  expect(app.get('/y', { authRule: 'admin', config: { challengeAnonymous: 'yes' } }, async () => 'y')).type.toRaiseError()
})
