// Preflights wherever the component is registered (issue 14, item 1): the
// prefix cases of @fastify/cors's test/preflight.test.js, ported, over
// inject and over a real socket. Routing is what is tested: an OPTIONS
// request reaches a component's onRequest hook only if it is routed into
// the instance the component was registered in.
import { test, type Test } from 'tap'
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify'
import { middlewareChain, trackRouteRules } from '@fastify-gatehouse/core'
import { corsPlugin, type CorsOptions } from '@fastify-gatehouse/cors'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { corsHeaders } from './helpers/build.js'

const APP = 'https://app.example.com'
const PREFLIGHT = { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' }

function preflight (app: FastifyInstance, url: string, headers: Record<string, string> = PREFLIGHT) {
  return app.inject({ method: 'OPTIONS', url, headers })
}

// What a browser needs from an answered preflight.
function assertAnswered (t: Test, res: { statusCode: number, body: string, headers: Record<string, unknown> }, url: string): void {
  t.equal(res.statusCode, 204, `${url}: answered`)
  t.equal(res.body, '', `${url}: empty body`)
  t.same(corsHeaders(res), {
    'access-control-allow-origin': APP,
    'access-control-allow-methods': 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS',
    'access-control-allow-headers': 'content-type',
    'access-control-max-age': '600'
  }, `${url}: preflight headers`)
  t.equal(res.headers['content-length'], '0', `${url}: Content-Length 0 (Safari)`)
}

function assertNotAnswered (t: Test, res: { statusCode: number, headers: Record<string, unknown> }, url: string): void {
  t.equal(res.statusCode, 404, `${url}: not answered`)
  t.same(corsHeaders(res), {}, `${url}: no CORS header`)
}

const CORS: CorsOptions = { allowOrigins: APP }

// The issue's reproduction.
const issueApi: FastifyPluginAsync = async (c) => {
  await c.register(corsPlugin, CORS)
  c.get('/hello', async () => ({ hello: 'world' }))
  c.put('/hello', async () => ({ put: true }))
}

test('cors inside a prefixed plugin answers preflights to its routes (the issue)', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(issueApi, { prefix: '/api' })
  await app.ready()

  assertAnswered(t, await preflight(app, '/api/hello'), '/api/hello')
  const get = await app.inject({ url: '/api/hello', headers: { origin: APP } })
  t.equal(get.statusCode, 200)
  t.same(corsHeaders(get), { 'access-control-allow-origin': APP })
  // Outside the plugin: not the component's business.
  assertNotAnswered(t, await preflight(app, '/hello'), '/hello')
})

test('the prefix itself, with and without its slash, and paths without a route under it', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(issueApi, { prefix: '/api' })
  await app.ready()
  for (const url of ['/api', '/api/', '/api/foo', '/api/a/b/c', '/api/hello?x=1']) assertAnswered(t, await preflight(app, url), url)
  // @fastify/cors's `*` route makes `/prefixfoo` part of `/prefix`; here it is not:
  // a preflight answer lets a browser send the request, so none leaks past the scope.
  for (const url of ['/apifoo', '/ap', '/other/api/hello']) assertNotAnswered(t, await preflight(app, url), url)
})

test('a prefix with a trailing slash', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(issueApi, { prefix: '/api/' })
  await app.ready()
  for (const url of ['/api/', '/api/hello', '/api/foo']) assertAnswered(t, await preflight(app, url), url)
  // Fastify's own routes under `/api/` do not answer `/api` either.
  t.equal((await app.inject({ url: '/api', headers: { origin: APP } })).statusCode, 404)
  assertNotAnswered(t, await preflight(app, '/api'), '/api')
})

for (const prefixTrailingSlash of ['both', 'slash', 'no-slash'] as const) {
  test(`prefixTrailingSlash: '${prefixTrailingSlash}' on the prefix's own route`, async (t) => {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(async (c) => {
      await c.register(corsPlugin, CORS)
      c.get('/', { prefixTrailingSlash }, async () => ({ index: true }))
    }, { prefix: '/api' })
    await app.ready()
    for (const url of ['/api', '/api/']) assertAnswered(t, await preflight(app, url), url)
  })
}

test('nested prefixes: registered in the inner plugin, or in the outer one', async (t) => {
  const inner = Fastify()
  t.teardown(() => inner.close())
  await inner.register(async (api) => {
    await api.register(async (v1) => {
      await v1.register(corsPlugin, CORS)
      v1.get('/hello', async () => ({ hello: 'v1' }))
    }, { prefix: '/v1' })
    api.get('/status', async () => ({ ok: true }))
  }, { prefix: '/api' })
  await inner.ready()
  for (const url of ['/api/v1', '/api/v1/hello', '/api/v1/deep/er']) assertAnswered(t, await preflight(inner, url), url)
  for (const url of ['/api/status', '/api', '/api/v2/hello']) assertNotAnswered(t, await preflight(inner, url), url)

  const outer = Fastify()
  t.teardown(() => outer.close())
  await outer.register(async (api) => {
    await api.register(corsPlugin, CORS)
    await api.register(async (v1) => {
      v1.get('/hello', async () => ({ hello: 'v1' }))
    }, { prefix: '/v1' })
  }, { prefix: '/api' })
  await outer.ready()
  for (const url of ['/api', '/api/v1/hello', '/api/v2/hello']) assertAnswered(t, await preflight(outer, url), url)
  const get = await outer.inject({ url: '/api/v1/hello', headers: { origin: APP } })
  t.same(corsHeaders(get), { 'access-control-allow-origin': APP })
})

test('a prefix without any route still answers preflights under it', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(async (c) => { await c.register(corsPlugin, CORS) }, { prefix: '/empty' })
  await app.ready()
  for (const url of ['/empty', '/empty/anything']) assertAnswered(t, await preflight(app, url), url)
  // An OPTIONS that is not a preflight falls through to the not-found handler.
  const plain = await app.inject({ method: 'OPTIONS', url: '/empty/anything' })
  t.equal(plain.statusCode, 404)
  t.same(corsHeaders(plain), {})
  const noMethod = await app.inject({ method: 'OPTIONS', url: '/empty/anything', headers: { origin: APP } })
  t.equal(noMethod.statusCode, 404, 'Origin without Access-Control-Request-Method: not a preflight')
})

test('a disallowed origin is not answered under the prefix, and a route\'s own OPTIONS handler still runs', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(async (c) => {
    await c.register(corsPlugin, CORS)
    c.options('/own', async () => ({ own: true }))
  }, { prefix: '/api' })
  await app.ready()
  assertNotAnswered(t, await preflight(app, '/api/hello', { ...PREFLIGHT, origin: 'https://evil.example' }), 'evil origin')
  assertAnswered(t, await preflight(app, '/api/own'), '/api/own preflight')
  const own = await app.inject({ method: 'OPTIONS', url: '/api/own' })
  t.equal(own.statusCode, 200)
  t.same(own.json(), { own: true })
})

test('a wildcard OPTIONS route the plugin declared first is kept, and its preflights are answered', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  // Tracked (as AppServer does), routes may come before the component.
  trackRouteRules(app)
  await app.register(async (c) => {
    c.all('/*', async () => ({ proxied: true }))
    await c.register(corsPlugin, CORS)
  }, { prefix: '/proxy' })
  await app.ready()
  assertAnswered(t, await preflight(app, '/proxy/x'), '/proxy/x')
  const plain = await app.inject({ method: 'OPTIONS', url: '/proxy/x' })
  t.same(plain.json(), { proxied: true }, 'the application\'s route is not replaced')
})

test('in the middleware chain of a prefixed plugin, with the errors component', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(async (c) => {
    await middlewareChain(c, { middleware: { cors: { allowOrigins: APP } } }, { components: [errorsPlugin, corsPlugin] })
    c.get('/hello', async () => ({ hello: 'world' }))
  }, { prefix: '/api' })
  await app.ready()
  assertAnswered(t, await preflight(app, '/api/hello'), '/api/hello')
  const plain = await app.inject({ method: 'OPTIONS', url: '/api/hello' })
  t.equal(plain.statusCode, 404)
})

test('at the root: every path is in scope, and no route is added (an app-wide OPTIONS /* stays free)', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(corsPlugin, CORS)
  app.get('/hello', async () => ({ hello: 'world' }))
  app.all('/*', async () => ({ fallback: true }))
  await app.ready()
  for (const url of ['/hello', '/', '/nothing/here']) assertAnswered(t, await preflight(app, url), url)
  t.notMatch(app.printRoutes({ commonPrefix: false }), /\(OPTIONS\)/, 'only the application\'s routes')
})

test('an encapsulated plugin without a prefix: a boot warning says preflights cannot be scoped', async (t) => {
  const lines: Array<{ level: number, msg: string }> = []
  const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  await app.register(async (c) => {
    await c.register(corsPlugin, CORS)
    c.get('/hello', async () => ({ hello: 'world' }))
  })
  await app.ready()
  t.match(lines, [{ level: 40, msg: /cors: registered in an encapsulated plugin without a prefix/ }])
  // No app-wide answer from a component scoped to a few routes.
  assertNotAnswered(t, await preflight(app, '/elsewhere'), '/elsewhere')
})

test('over a real socket: fetch sees the preflight answer under the prefix, 404 outside', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  // Two plugins, each with its own cors: the second comes after routes.
  trackRouteRules(app)
  await app.register(issueApi, { prefix: '/api' })
  await app.register(async (c) => {
    await c.register(corsPlugin, CORS)
    c.get('/', { prefixTrailingSlash: 'no-slash' }, async () => ({ index: true }))
  }, { prefix: '/v2/' })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  for (const path of ['/api/hello', '/api', '/api/', '/api/nothing', '/v2/']) {
    const res = await fetch(base + path, { method: 'OPTIONS', headers: PREFLIGHT })
    t.equal(res.status, 204, `${path}: answered`)
    t.equal(res.headers.get('access-control-allow-origin'), APP)
    t.equal(res.headers.get('access-control-allow-methods'), 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS')
    t.equal(res.headers.get('access-control-allow-headers'), 'content-type')
    t.equal(res.headers.get('content-length'), '0')
    t.equal(await res.text(), '')
  }
  for (const path of ['/hello', '/apifoo']) {
    const res = await fetch(base + path, { method: 'OPTIONS', headers: PREFLIGHT })
    t.equal(res.status, 404, `${path}: not answered`)
    t.equal(res.headers.get('access-control-allow-origin'), null)
    await res.arrayBuffer()
  }
  const put = await fetch(base + '/api/hello', { method: 'PUT', headers: { origin: APP } })
  t.equal(put.status, 200)
  t.equal(put.headers.get('access-control-allow-origin'), APP)
  t.same(await put.json(), { put: true })
})
