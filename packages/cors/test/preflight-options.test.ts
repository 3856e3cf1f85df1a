// The preflight options @fastify/cors users rely on (issue 17, item 5):
// strictPreflight, optionsSuccessStatus and preflight: false, ported from
// the cases of @fastify/cors's test/preflight.test.js and cors.test.js.
import { test } from 'tap'
import Fastify from 'fastify'
import { corsPlugin } from '@fastify-gatehouse/cors'
import { build, corsHeaders } from './helpers/build.js'

const APP = 'https://app.example.com'
const EVIL = 'https://evil.example'

test('strictPreflight: an OPTIONS without Origin or Access-Control-Request-Method is a 400 saying which', async (t) => {
  const app = await build({ allowOrigins: APP, strictPreflight: true })
  t.teardown(() => app.close())
  const options = (headers: Record<string, string>) => app.inject({ method: 'OPTIONS', url: '/open', headers })
  const noOrigin = 'Invalid CORS preflight request: it has no Origin header (strictPreflight takes every OPTIONS request as a preflight)'
  const noMethod = 'Invalid CORS preflight request: it has no Access-Control-Request-Method header (strictPreflight takes every OPTIONS request as a preflight)'

  for (const [headers, message, cors] of [
    [{}, noOrigin, {}],
    [{ 'access-control-request-method': 'GET' }, noOrigin, {}],
    // The allowed origin can read why (the headers come first); another cannot.
    [{ origin: APP }, noMethod, { 'access-control-allow-origin': APP }],
    [{ origin: EVIL }, noMethod, {}]
  ] as const) {
    const res = await options(headers)
    t.equal(res.statusCode, 400, JSON.stringify(headers))
    t.same(res.json(), { statusCode: 400, code: 'GATEHOUSE_CORS_INVALID_PREFLIGHT', error: 'Bad Request', message })
    t.same(corsHeaders(res), cors)
    t.equal(res.headers.vary, 'Origin')
  }
  // A whole preflight is answered as ever; a disallowed one is still not answered (not a 400).
  const ok = await options({ origin: APP, 'access-control-request-method': 'PUT' })
  t.equal(ok.statusCode, 204)
  t.equal(ok.headers['access-control-allow-methods'], 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS')
  t.equal((await options({ origin: EVIL, 'access-control-request-method': 'PUT' })).statusCode, 404)
  // Other methods are not concerned.
  t.equal((await app.inject({ url: '/open' })).statusCode, 200)
})

test('strictPreflight: a route with config.cors false keeps its OPTIONS; registered alone, the body is Fastify\'s with the code', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(corsPlugin, { strictPreflight: true })
  app.options('/webdav', { config: { cors: false } }, async (_request, reply) => { reply.header('allow', 'GET, PROPFIND'); return '' })
  await app.ready()
  const own = await app.inject({ method: 'OPTIONS', url: '/webdav' })
  t.equal(own.statusCode, 200)
  t.equal(own.headers.allow, 'GET, PROPFIND')
  const refused = await app.inject({ method: 'OPTIONS', url: '/elsewhere' })
  t.equal(refused.statusCode, 400)
  t.match(refused.json(), { statusCode: 400, code: 'GATEHOUSE_CORS_INVALID_PREFLIGHT', message: /it has no Origin header/ })
})

test('strictPreflight under a prefix: the hidden OPTIONS routes refuse too, outside the scope nothing changes', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(async (api) => {
    await api.register(corsPlugin, { allowOrigins: APP, strictPreflight: true })
    api.get('/x', async () => ({ x: true }))
  }, { prefix: '/api' })
  await app.ready()
  const inside = await app.inject({ method: 'OPTIONS', url: '/api/x', headers: { origin: APP } })
  t.equal(inside.statusCode, 400)
  t.equal(inside.json().code, 'GATEHOUSE_CORS_INVALID_PREFLIGHT')
  const outside = await app.inject({ method: 'OPTIONS', url: '/other', headers: { origin: APP } })
  t.equal(outside.statusCode, 404)
})

test('optionsSuccessStatus: the status of an answered preflight, body still empty', async (t) => {
  const app = await build({ allowOrigins: APP, optionsSuccessStatus: 200 })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'OPTIONS', url: '/open', headers: { origin: APP, 'access-control-request-method': 'GET' } })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  t.equal(res.headers['content-length'], '0')
  t.same(corsHeaders(res), {
    'access-control-allow-origin': APP,
    'access-control-allow-methods': 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS',
    'access-control-max-age': '600'
  })
})

test('preflight: false: cors answers no preflight; the application\'s OPTIONS routes do, with the origin headers', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(corsPlugin, { allowOrigins: APP, allowCredentials: true, preflight: false })
  app.get('/open', async () => ({ open: true }))
  app.options('/own', async (_request, reply) => {
    reply.header('access-control-allow-methods', 'GET').code(204).send()
  })
  await app.ready()
  const headers = { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-a' }
  const none = await app.inject({ method: 'OPTIONS', url: '/open', headers })
  t.equal(none.statusCode, 404, 'no OPTIONS route: not found, not a 204')
  t.same(corsHeaders(none), { 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true' }, 'the 404 is readable; no preflight headers')
  t.equal(none.headers.vary, 'Origin')
  const own = await app.inject({ method: 'OPTIONS', url: '/own', headers })
  t.equal(own.statusCode, 204)
  t.same(corsHeaders(own), { 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true', 'access-control-allow-methods': 'GET' }, 'the application\'s answer')
  const get = await app.inject({ url: '/open', headers: { origin: APP } })
  t.same(corsHeaders(get), { 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true' })
})

test('preflight: false under a prefix adds no hidden OPTIONS route', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(async (api) => {
    await api.register(corsPlugin, { allowOrigins: APP, preflight: false })
    api.get('/x', async () => ({ x: true }))
  }, { prefix: '/api' })
  await app.ready()
  t.notMatch(app.printRoutes({ commonPrefix: false }), /OPTIONS/)
  const res = await app.inject({ method: 'OPTIONS', url: '/api/x', headers: { origin: APP, 'access-control-request-method': 'GET' } })
  t.equal(res.statusCode, 404)
  t.same(corsHeaders(res), {}, 'outside the plugin\'s routes, its hook does not run')
})
