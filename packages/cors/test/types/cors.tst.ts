// The cors component's types: the `config.cors` merge into Fastify's route
// config and CorsOptions (unknown keys and wrong types are type errors).
import Fastify, { type FastifyContextConfig, type FastifyRequest } from 'fastify'
import { expect, test } from 'tstyche'
import { corsPlugin, type CorsOptions, type CorsRouteOptions, type OriginFunction } from '@fastify-gatehouse/cors'

const app = Fastify()

test('config.cors takes false or route options', () => {
  app.get('/a', { config: { cors: false } }, async () => null)
  app.get('/b', async (request) => {
    expect(request.routeOptions.config.cors).type.toBe<false | CorsRouteOptions | undefined>()
    return null
  })
  app.get('/c', { config: { cors: { allowOrigins: [/^https:\/\/[a-z]+\.example\.com$/, 'https://a.example'], allowCredentials: true, maxAge: 60 } } }, async () => null)
  // Fastify infers a route's config type from the literal and intersects it
  // with FastifyContextConfig, so in app.get(…) a wrong `cors` is no type
  // error (`true & CorsRouteOptions` is not never); it is a boot error. Typed
  // as the config itself, it is refused.
  expect({ cors: true }).type.not.toBeAssignableTo<FastifyContextConfig>()
  expect({ cors: { strictPreflight: true } }).type.not.toBeAssignableTo<FastifyContextConfig>()
  expect({ cors: { maxAge: '60' } }).type.not.toBeAssignableTo<FastifyContextConfig>()
})

test('allowOrigins: strings, RegExps, mixed lists, or a function of (origin, request) to boolean or Promise<boolean>', () => {
  expect({ allowOrigins: /^https:\/\/a\.example$/ }).type.toBeAssignableTo<CorsOptions>()
  expect({ allowOrigins: ['https://a.example', /^https:\/\/b\.example$/] }).type.toBeAssignableTo<CorsOptions>()
  const sync = (origin: string, request: FastifyRequest) => origin.endsWith('.example') && request.method !== 'TRACE'
  expect({ allowOrigins: sync }).type.toBeAssignableTo<CorsOptions>()
  expect({ allowOrigins: async (origin: string) => origin === 'https://a.example' }).type.toBeAssignableTo<CorsOptions>()
  expect<OriginFunction>().type.toBe<(origin: string, request: FastifyRequest) => boolean | Promise<boolean>>()
  expect({ allowOrigins: (origin: string) => origin }).type.not.toBeAssignableTo<CorsOptions>()
  expect({ allowOrigins: [1] }).type.not.toBeAssignableTo<CorsOptions>()
  expect({ strictPreflight: true, optionsSuccessStatus: 200, preflight: false }).type.toBeAssignableTo<CorsOptions>()
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
