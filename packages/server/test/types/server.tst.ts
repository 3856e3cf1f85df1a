// AppServer's public option types.
import { expect, test } from 'tstyche'
import { AppServer, type AppServerOptions } from '@fastify-gatehouse/server'

test('AppServerOptions: users and tokens as records or stores, login, middleware', () => {
  expect<{}>().type.toBeAssignableTo<AppServerOptions>()
  expect({
    users: { alice: { password: 'secret', tags: 'admin' } },
    tokens: { ci: { key: 'gak_…', tags: ['deploy'] } },
    login: true,
    externalUrl: 'https://shop.example',
    middleware: { cors: { allowOrigins: ['https://a.example'] } }
  }).type.toBeAssignableTo<AppServerOptions>()
  expect({ users: { alice: { tags: 'admin' } } }).type.not.toBeAssignableTo<AppServerOptions>()
  expect({ users: { alice: { passwordHash: 'scrypt$…', tags: 'admin' } } }).type.toBeAssignableTo<AppServerOptions>()
  expect({ users: { alice: { password: 'p', passwordHash: 'scrypt$…' } } }).type.not.toBeAssignableTo<AppServerOptions>()
  expect({ login: 'yes' }).type.not.toBeAssignableTo<AppServerOptions>()
  expect(new AppServer({ login: true })).type.toBeAssignableTo<AppServer>()
  expect(new AppServer({ logins: true })).type.toRaiseError()
})
