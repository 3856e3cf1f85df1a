// The csrf component's types: the `config.csrf` merge and CsrfOptions.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import { csrfPlugin, type CsrfOptions } from '@fastify-gatehouse/csrf'

const app = Fastify()

test("config.csrf takes 'always' only", () => {
  app.post('/login', { config: { csrf: 'always' } }, async () => null)
  app.get('/', async (request) => {
    expect(request.routeOptions.config.csrf).type.toBe<'always' | undefined>()
    return null
  })
  expect(app.post('/x', { config: { csrf: true } }, async () => null)).type.toRaiseError()
})

test('CsrfOptions and app.register(csrfPlugin, …)', () => {
  expect({ cookieName: 'sid', allowOrigins: ['https://a.example'] }).type.toBeAssignableTo<CsrfOptions>()
  expect({ allowOrigins: 'https://a.example, https://b.example' }).type.toBeAssignableTo<CsrfOptions>()
  expect({ allowOrigins: true }).type.not.toBeAssignableTo<CsrfOptions>()
  app.register(csrfPlugin, { allowOrigins: ['https://a.example'] })
  expect(app.register(csrfPlugin, { cookieName: 1 })).type.toRaiseError()
  expect(app.register(csrfPlugin, { origins: [] })).type.toRaiseError()
})
