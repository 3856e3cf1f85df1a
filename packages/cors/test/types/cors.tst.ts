// The cors component's types: the `config.cors` merge into Fastify's route
// config and CorsOptions (unknown keys and wrong types are type errors).
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import { corsPlugin, type CorsOptions } from '@fastify-gatehouse/cors'

const app = Fastify()

test('config.cors takes false only', () => {
  app.get('/a', { config: { cors: false } }, async () => null)
  app.get('/b', async (request) => {
    expect(request.routeOptions.config.cors).type.toBe<false | undefined>()
    return null
  })
  expect(app.get('/c', { config: { cors: true } }, async () => null)).type.toRaiseError()
})

test('CorsOptions: every key optional, lists as arrays or comma-separated strings', () => {
  expect<{}>().type.toBeAssignableTo<CorsOptions>()
  expect({ allowOrigins: ['https://a.example'], allowMethods: 'GET, POST', allowHeaders: '*', allowCredentials: true, exposeHeaders: [], maxAge: 60 }).type.toBeAssignableTo<CorsOptions>()
  expect({ allowOrigins: 1 }).type.not.toBeAssignableTo<CorsOptions>()
  expect({ allowCredentials: 'yes' }).type.not.toBeAssignableTo<CorsOptions>()
  expect({ maxAge: '60' }).type.not.toBeAssignableTo<CorsOptions>()
})

test('app.register(corsPlugin, …) checks the options', () => {
  app.register(corsPlugin)
  app.register(corsPlugin, { allowOrigins: ['https://a.example'], allowCredentials: true })
  expect(app.register(corsPlugin, { allowOrigins: 1 })).type.toRaiseError()
  expect(app.register(corsPlugin, { allowOrigin: ['https://a.example'] })).type.toRaiseError()
})
