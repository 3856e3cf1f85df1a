// CORS as the Fetch standard (https://fetch.spec.whatwg.org/#http-cors-protocol)
// describes it: what a browser needs to see on actual and preflight responses.
import { test } from 'tap'
import { build, corsHeaders } from './helpers/build.js'

const APP = 'https://app.example.com'
const EVIL = 'https://evil.example'

test('CORS-safelisted request, any origin: ACAO is *, nothing else', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/open', headers: { origin: APP } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { open: true })
  t.same(corsHeaders(res), { 'access-control-allow-origin': '*' })
  t.equal(res.headers.vary, 'Origin', 'responses differ by Origin, so caches must key on it')
})

test('a request without Origin is not a CORS request: no CORS headers', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/open' })
  t.equal(res.statusCode, 200)
  t.same(corsHeaders(res), {})
  t.equal(res.headers.vary, 'Origin', 'a cache must not hand this answer to a request with an Origin')
})

test('listed origins: the allowed one is echoed with Vary: Origin; others get no CORS headers', async (t) => {
  const app = await build({ allowOrigins: [APP, 'http://localhost:3000'], exposeHeaders: 'x-total, x-page' })
  t.teardown(() => app.close())
  const ok = await app.inject({ url: '/open', headers: { origin: 'http://localhost:3000' } })
  t.same(corsHeaders(ok), { 'access-control-allow-origin': 'http://localhost:3000', 'access-control-expose-headers': 'x-total, x-page' })
  t.equal(ok.headers.vary, 'Origin')
  for (const origin of [EVIL, 'https://app.example.com.evil.example', 'https://APP.example.com', 'null', `${APP}/`]) {
    const res = await app.inject({ url: '/open', headers: { origin } })
    t.equal(res.statusCode, 200, `${origin}: the request itself is served (CORS is the browser's check)`)
    t.same(corsHeaders(res), {}, `${origin}: no CORS header at all`)
    t.equal(res.headers.vary, 'Origin')
  }
})

test('credentials: * is never sent; the origin is echoed with ACAC true and Vary: Origin', async (t) => {
  const app = await build({ allowCredentials: true })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/open', headers: { origin: APP } })
  t.same(corsHeaders(res), { 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true' })
  t.equal(res.headers.vary, 'Origin')
  const opaque = await app.inject({ url: '/open', headers: { origin: 'null' } })
  t.same(corsHeaders(opaque), {}, 'an opaque origin is never echoed with credentials')
})

test('credentials with a list: a disallowed origin gets neither ACAO nor ACAC', async (t) => {
  const app = await build({ allowOrigins: APP, allowCredentials: true, exposeHeaders: ['x-total'] })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/open', headers: { origin: EVIL } })
  t.equal(res.statusCode, 200)
  t.same(corsHeaders(res), {})
})

test('preflight: 204, empty body, methods, echoed headers (Authorization included), max-age', async (t) => {
  const app = await build({ allowOrigins: [APP] })
  t.teardown(() => app.close())
  const res = await app.inject({
    method: 'OPTIONS',
    url: '/private',
    headers: { origin: APP, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization, content-type' }
  })
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  t.equal(res.headers['content-length'], '0')
  t.same(corsHeaders(res), {
    'access-control-allow-origin': APP,
    'access-control-allow-methods': 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-max-age': '600'
  })
  t.equal(res.headers.vary, 'Origin, Access-Control-Request-Headers')
})

test('preflight with listed headers, methods and max-age as configured', async (t) => {
  const app = await build({ allowMethods: 'get, post', allowHeaders: 'content-type,x-requested-with', maxAge: 0 })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'OPTIONS', url: '/open', headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-other' } })
  t.equal(res.statusCode, 204)
  t.same(corsHeaders(res), {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET,POST',
    'access-control-allow-headers': 'content-type, x-requested-with',
    'access-control-max-age': '0'
  })
})

test('credentials and * methods: the requested method is named, never *', async (t) => {
  const app = await build({ allowOrigins: APP, allowMethods: '*', allowCredentials: true })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'OPTIONS', url: '/anything', headers: { origin: APP, 'access-control-request-method': 'PROPFIND', 'access-control-request-headers': 'x-a' } })
  t.equal(res.statusCode, 204)
  t.same(corsHeaders(res), {
    'access-control-allow-origin': APP,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': 'PROPFIND',
    'access-control-allow-headers': 'x-a',
    'access-control-max-age': '600'
  })
  const bad = await app.inject({ method: 'OPTIONS', url: '/open', headers: { origin: APP, 'access-control-request-method': 'GET(' } })
  t.equal(bad.statusCode, 404, 'a method that is not a token is not answered as a preflight')
  t.same(corsHeaders(bad), {})
})

test('a preflight from a disallowed origin is not answered', async (t) => {
  const app = await build({ allowOrigins: APP })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'OPTIONS', url: '/open', headers: { origin: EVIL, 'access-control-request-method': 'POST' } })
  t.equal(res.statusCode, 404)
  t.same(corsHeaders(res), {})
  t.match(res.json(), { statusCode: 404, error: 'Not Found' })
})

test('an OPTIONS request that is not a preflight reaches the app, with CORS headers', async (t) => {
  const app = await build({ allowOrigins: APP })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'OPTIONS', url: '/open', headers: { origin: APP } })
  t.equal(res.statusCode, 404, 'no OPTIONS route of its own: not found, not a 204')
  t.same(corsHeaders(res), { 'access-control-allow-origin': APP })
})

test('a route can opt out with config.cors = false: no CORS header and no Vary: Origin, with or without Origin (D-CORS-14)', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  for (const headers of [{ origin: APP }, {}, { origin: EVIL }]) {
    const res = await app.inject({ url: '/no-cors', headers })
    t.equal(res.statusCode, 200)
    t.same(res.json(), { plain: true })
    t.same(corsHeaders(res), {})
    t.equal(res.headers.vary, undefined, `${JSON.stringify(headers)}: the answer does not depend on Origin`)
  }
  // Its neighbours still vary, Origin or not.
  t.equal((await app.inject({ url: '/open' })).headers.vary, 'Origin')
})

test('preflight: Access-Control-Request-Headers is echoed only when it is a list of header names', async (t) => {
  const app = await build({ allowOrigins: [APP] })
  t.teardown(() => app.close())
  const preflight = (requested: string) => app.inject({ method: 'OPTIONS', url: '/open', headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': requested } })
  const ok = await preflight('x-a,x-b , content-type')
  t.equal(ok.statusCode, 204)
  t.equal(ok.headers['access-control-allow-headers'], 'x-a,x-b , content-type')
  for (const bad of ['x-a;evil', 'x-a, ', '(x)', 'x a']) {
    const res = await preflight(bad)
    t.equal(res.statusCode, 204, `${bad}: still a preflight answer`)
    t.equal(res.headers['access-control-allow-headers'], undefined, `${bad}: not echoed, so the browser refuses the actual request`)
    t.equal(res.headers['access-control-allow-origin'], APP)
  }
})
