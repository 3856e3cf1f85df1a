// The types a user of @fastify-gatehouse/core sees: the declaration merges
// into Fastify (`request.scope`, `config.authRule`, the `authRule` shorthand,
// `config.fresh` and the `fresh` shorthand)
// and the public option types. Checked against the built declarations (dist)
// (D-TOOLING-09).
import Fastify, { type FastifyRequest } from 'fastify'
import { expect, test } from 'tstyche'
import { Avatar, middlewareChain, type RequestScope } from '@fastify-gatehouse/core'

const app = Fastify()

test('request.scope is the RequestScope; scope.auth is an Avatar or null', () => {
  app.get('/', async (request) => {
    expect(request.scope).type.toBe<RequestScope>()
    expect(request.scope.auth).type.toBe<Avatar | null>()
    expect(request.scope.filePath).type.toBe<string | undefined>()
    return null
  })
  expect<FastifyRequest['scope']>().type.toBe<RequestScope>()
  expect<RequestScope['auth']>().type.toBe<Avatar | null>()
})

test('scope.auth is read-only data: an Avatar has identity, tags, backend', () => {
  const avatar = new Avatar('alice', { backend: 'basic', tags: ['admin'] })
  expect(avatar.identity).type.toBe<string>()
  expect(avatar.tags).type.toBe<readonly string[]>()
  expect(avatar.backend).type.toBe<string>()
  expect(avatar.authenticatedAt).type.toBe<number | null>()
  expect(new Avatar('alice', { backend: 'session', authenticatedAt: Date.now() })).type.toBe<Avatar>()
  expect(new Avatar('alice', { backend: 'api_key', authenticatedAt: null })).type.toBe<Avatar>()
  expect(new Avatar('alice', { backend: 1 })).type.toRaiseError()
  expect(new Avatar('alice', { backend: 'session', authenticatedAt: new Date() })).type.toRaiseError()
})

test('config.authRule and the authRule shorthand take a string', () => {
  app.get('/a', { config: { authRule: 'admin' } }, async () => null)
  app.get('/b', { authRule: 'admin & !suspended' }, async () => null)
  app.route({ method: 'GET', url: '/c', config: { authRule: 'ops' }, handler: async () => null })
  app.get('/d', async (request) => {
    expect(request.routeOptions.config.authRule).type.toBe<string | undefined>()
    return null
  })
  expect(app.get('/e', { config: { authRule: 1 } }, async () => null)).type.toRaiseError()
  expect(app.get('/f', { authRule: ['admin'] }, async () => null)).type.toRaiseError()
})

test('config.fresh and the fresh shorthand take a number of seconds', () => {
  app.get('/g', { config: { fresh: 600 } }, async () => null)
  app.get('/h', { fresh: 600, authRule: 'admin' }, async () => null)
  app.route({ method: 'POST', url: '/i', config: { authRule: 'ops', fresh: 300 }, handler: async () => null })
  app.get('/j', async (request) => {
    expect(request.routeOptions.config.fresh).type.toBe<number | undefined>()
    return null
  })
  expect(app.get('/k', { config: { fresh: '600' } }, async () => null)).type.toRaiseError()
  expect(app.get('/l', { fresh: true }, async () => null)).type.toRaiseError()
})

test('middlewareChain takes an app, a recipe and the components it may name', () => {
  expect(middlewareChain).type.toBeCallableWith(app, { middleware: { cors: { allowOrigins: ['https://a.example'] } } }, { components: [] })
  expect(middlewareChain).type.not.toBeCallableWith(app, { middleware: {} })
  expect(middlewareChain).type.not.toBeCallableWith({ middleware: {} })
})
