// Per-route options (issue 17, item 5): `config.cors: { … }` over the
// component's options, for the route's responses and for the preflights
// that ask about it; compiled at boot, bad values boot errors naming the
// route and the key.
import { test, type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import type { ConstraintStrategy, Handler, HTTPVersion } from 'find-my-way'
import { trackRouteRules } from '@fastify-gatehouse/core'
import { corsPlugin, type CorsOptions } from '@fastify-gatehouse/cors'
import { corsHeaders, withLog } from './helpers/build.js'

const APP = 'https://app.example.com'
const PARTNER = 'https://partner.example'
const ADMIN = 'https://admin.example'
const METHODS = 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS'

function routes (app: FastifyInstance): void {
  app.get('/default', async () => ({ route: 'default' }))
  app.get('/public', { config: { cors: { allowOrigins: '*' } } }, async () => ({ route: 'public' }))
  app.get('/partner', {
    config: { cors: { allowOrigins: [PARTNER], allowCredentials: true, allowMethods: 'GET, PUT', allowHeaders: 'x-partner', exposeHeaders: 'x-total', maxAge: 60 } }
  }, async () => ({ route: 'partner' }))
  app.put('/partner', async () => ({ route: 'partner put' }))
  app.get('/users/me', async () => ({ route: 'me' }))
  app.get('/users/:id', { config: { cors: { allowOrigins: ADMIN } } }, async () => ({ route: 'user' }))
  app.delete('/off', { config: { cors: false } }, async () => ({ route: 'off' }))
  app.get('/off', async () => ({ route: 'off get' }))
}

const COMPONENT: CorsOptions = { allowOrigins: APP }

function preflight (app: FastifyInstance, url: string, origin: string, method: string, headers = 'x-a') {
  return app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } })
}

function answered (t: Test, res: { statusCode: number, body: string, headers: Record<string, unknown> }, expected: Record<string, string>, what: string): void {
  t.equal(res.statusCode, 204, `${what}: answered`)
  t.equal(res.body, '', `${what}: empty`)
  t.same(corsHeaders(res), expected, `${what}: headers`)
}

function notAnswered (t: Test, res: { statusCode: number, headers: Record<string, unknown> }, what: string): void {
  t.equal(res.statusCode, 404, `${what}: not answered`)
  t.same(corsHeaders(res), {}, `${what}: no CORS header`)
}

test('actual requests: a route\'s config.cors replaces the component\'s options key by key, both ways', async (t) => {
  const { app } = await withLog(COMPONENT, routes)
  t.teardown(() => app.close())
  const get = (url: string, origin: string) => app.inject({ url, headers: { origin } })

  // The component: APP only.
  t.same(corsHeaders(await get('/default', APP)), { 'access-control-allow-origin': APP })
  t.same(corsHeaders(await get('/default', PARTNER)), {})
  // Looser: any origin, `*` (no credentials).
  const pub = await get('/public', PARTNER)
  t.same(pub.json(), { route: 'public' })
  t.same(corsHeaders(pub), { 'access-control-allow-origin': '*' })
  t.equal(pub.headers.vary, 'Origin')
  // Other: the partner, with credentials and exposed headers; not APP.
  const partner = await get('/partner', PARTNER)
  t.same(corsHeaders(partner), { 'access-control-allow-origin': PARTNER, 'access-control-allow-credentials': 'true', 'access-control-expose-headers': 'x-total' })
  t.equal(partner.headers.vary, 'Origin')
  t.same(corsHeaders(await get('/partner', APP)), {}, 'stricter: the component\'s origin is not the route\'s')
  // HEAD is Fastify's copy of GET, config included.
  const head = await app.inject({ method: 'HEAD', url: '/partner', headers: { origin: PARTNER } })
  t.equal(head.headers['access-control-allow-origin'], PARTNER)
  // The same path, another method without config: the component's.
  t.same(corsHeaders(await app.inject({ method: 'PUT', url: '/partner', headers: { origin: APP } })), { 'access-control-allow-origin': APP })
  // Static beats parametric, as in Fastify's router.
  t.same(corsHeaders(await get('/users/me', APP)), { 'access-control-allow-origin': APP })
  t.same(corsHeaders(await get('/users/42', ADMIN)), { 'access-control-allow-origin': ADMIN })
  t.same(corsHeaders(await get('/users/42', APP)), {})
  // false: nothing at all.
  const off = await app.inject({ method: 'DELETE', url: '/off', headers: { origin: APP } })
  t.same(off.json(), { route: 'off' })
  t.same(corsHeaders(off), {})
  t.equal(off.headers.vary, undefined)
})

test('preflights are answered with the options of the route they ask about (method and path)', async (t) => {
  const { app } = await withLog(COMPONENT, routes)
  t.teardown(() => app.close())
  const component = { 'access-control-allow-origin': APP, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }

  answered(t, await preflight(app, '/default', APP, 'GET'), component, 'GET /default')
  notAnswered(t, await preflight(app, '/default', PARTNER, 'GET'), 'GET /default from the partner')

  answered(t, await preflight(app, '/public', PARTNER, 'GET'), { ...component, 'access-control-allow-origin': '*' }, 'GET /public')

  answered(t, await preflight(app, '/partner', PARTNER, 'GET'), {
    'access-control-allow-origin': PARTNER,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': 'x-total',
    'access-control-allow-methods': 'GET,PUT',
    'access-control-allow-headers': 'x-partner',
    'access-control-max-age': '60'
  }, 'GET /partner')
  notAnswered(t, await preflight(app, '/partner', APP, 'GET'), 'GET /partner from APP')
  // PUT /partner has no config: the component's, whatever GET /partner says.
  answered(t, await preflight(app, '/partner', APP, 'PUT'), component, 'PUT /partner')
  notAnswered(t, await preflight(app, '/partner', PARTNER, 'PUT'), 'PUT /partner from the partner')

  answered(t, await preflight(app, '/users/me', APP, 'GET'), component, 'GET /users/me (static)')
  answered(t, await preflight(app, '/users/42?x=1', ADMIN, 'GET'), { ...component, 'access-control-allow-origin': ADMIN }, 'GET /users/42 (parametric)')
  notAnswered(t, await preflight(app, '/users/42', APP, 'GET'), 'GET /users/42 from APP')

  // config.cors: false refuses the preflight that asks about the route, not the path's other methods.
  notAnswered(t, await preflight(app, '/off', APP, 'DELETE'), 'DELETE /off')
  answered(t, await preflight(app, '/off', APP, 'GET'), component, 'GET /off')

  // A path or method without a route: the component's (the request will 404, readable).
  answered(t, await preflight(app, '/nowhere', APP, 'PATCH'), component, 'PATCH /nowhere')
  answered(t, await preflight(app, '/public', APP, 'PATCH'), component, 'PATCH /public (no such route)')
})

test('under a prefix: the hidden OPTIONS routes reach the route\'s options', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(async (api) => {
    await api.register(corsPlugin, COMPONENT)
    api.get('/items', async () => [])
    api.post('/items', { config: { cors: { allowOrigins: PARTNER, allowMethods: 'POST' } } }, async () => ({ created: true }))
  }, { prefix: '/api' })
  await app.ready()
  answered(t, await preflight(app, '/api/items', PARTNER, 'POST'), { 'access-control-allow-origin': PARTNER, 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, 'POST /api/items')
  notAnswered(t, await preflight(app, '/api/items', PARTNER, 'GET'), 'GET /api/items from the partner')
  answered(t, await preflight(app, '/api/items', APP, 'GET'), { 'access-control-allow-origin': APP, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, 'GET /api/items')
  const post = await app.inject({ method: 'POST', url: '/api/items', headers: { origin: PARTNER } })
  t.same(post.json(), { created: true })
  t.same(corsHeaders(post), { 'access-control-allow-origin': PARTNER })
})

test('the route lookup follows Fastify\'s router options (case, trailing and duplicate slashes)', async (t) => {
  const app = Fastify({ routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true } })
  t.teardown(() => app.close())
  await app.register(corsPlugin, COMPONENT)
  app.get('/Partner/:id', { config: { cors: { allowOrigins: PARTNER } } }, async () => ({ partner: true }))
  await app.ready()
  for (const url of ['/partner/1', '/PARTNER/1/', '//partner//1']) {
    const actual = await app.inject({ url, headers: { origin: PARTNER } })
    t.equal(actual.statusCode, 200, `${url}: Fastify routes it`)
    t.equal(actual.headers['access-control-allow-origin'], PARTNER)
    answered(t, await preflight(app, url, PARTNER, 'GET'), { 'access-control-allow-origin': PARTNER, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, url)
  }
})

test('a route with config.cors declared before cors (trackRouteRules) is a boot error naming it: its options would be ignored', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  // Routes before a component are a boot error unless tracked (as AppServer does).
  trackRouteRules(app)
  app.delete('/early', { config: { cors: { allowOrigins: APP } } }, async () => 'deleted')
  app.delete('/early-off', { config: { cors: false } }, async () => 'deleted')
  app.get('/plain', async () => 'plain')
  await t.rejects(async () => { await app.register(corsPlugin, { allowOrigins: [APP, PARTNER], allowCredentials: true }) }, {
    code: 'GATEHOUSE_CORS_INVALID_OPTIONS',
    message: 'cors options: config.cors of routes DELETE /early, DELETE /early-off: declared before cors was registered, so cors never saw it; declare routes after cors (after middlewareChain)'
  })
})

test('a route without config.cors declared before cors at the root (trackRouteRules): its preflight gets the component\'s options, as its requests do', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  trackRouteRules(app)
  app.delete('/early', async () => ({ early: true }))
  await app.register(corsPlugin, COMPONENT)
  app.delete('/late', { config: { cors: false } }, async () => ({ late: true }))
  await app.ready()
  answered(t, await preflight(app, '/early', APP, 'DELETE'), { 'access-control-allow-origin': APP, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, 'DELETE /early')
  const res = await app.inject({ method: 'DELETE', url: '/early', headers: { origin: APP } })
  t.same(res.json(), { early: true })
  t.same(corsHeaders(res), { 'access-control-allow-origin': APP })
  notAnswered(t, await preflight(app, '/late', APP, 'DELETE'), 'DELETE /late (config.cors: false)')
})

/**
 * cors in a plugin under `/api` (with `GET /api/items`), and `routes` in
 * another plugin under the same prefix: routes cors never sees.
 */
async function besideCors (t: Test, cors: CorsOptions, routes: (other: FastifyInstance) => void): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(async (api) => {
    await api.register(corsPlugin, cors)
    api.get('/items', async () => [])
  }, { prefix: '/api' })
  await app.register(async (other) => { routes(other) }, { prefix: '/api' })
  await app.ready()
  return app
}

test('a preflight about a route cors never saw (another plugin under the same prefix) fails closed; a path with no route still gets the component\'s', async (t) => {
  const app = await besideCors(t, COMPONENT, (other) => {
    other.delete('/admin', async () => ({ deleted: true }))
    other.delete('/admin-off', { config: { cors: false } }, async () => ({ deleted: true }))
  })
  for (const url of ['/api/admin', '/api/admin?x=1', '/api/admin-off']) {
    notAnswered(t, await preflight(app, url, APP, 'DELETE'), `DELETE ${url}: not cors's route`)
  }
  const real = await app.inject({ method: 'DELETE', url: '/api/admin', headers: { origin: APP } })
  t.same(real.json(), { deleted: true })
  t.same(corsHeaders(real), {}, 'its requests get no CORS headers either')
  answered(t, await preflight(app, '/api/items', APP, 'GET'), { 'access-control-allow-origin': APP, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, 'GET /api/items')
  answered(t, await preflight(app, '/api/nothing', APP, 'PUT'), { 'access-control-allow-origin': APP, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, 'PUT /api/nothing (no route)')
})

/**
 * What a browser does with a preflight answer before a credentialed request
 * (Fetch, CORS-preflight fetch and CORS check): the origin echoed, credentials
 * allowed, the method and the request headers listed.
 */
function browserWouldSend (res: { status: number, headers: Headers }, origin: string, method: string, headers: string[]): boolean {
  const listed = (name: string): string[] => (res.headers.get(name) ?? '').split(',').map((v) => v.trim().toLowerCase()).filter((v) => v !== '')
  return res.status >= 200 && res.status < 300 &&
    res.headers.get('access-control-allow-origin') === origin &&
    res.headers.get('access-control-allow-credentials') === 'true' &&
    listed('access-control-allow-methods').includes(method.toLowerCase()) &&
    headers.every((h) => listed('access-control-allow-headers').includes(h))
}

test('a route constrained only by version, declared where cors never saw it: its preflight is refused and the PUT never runs (D-CORS-13)', async (t) => {
  let runs = 0
  const component: CorsOptions = { allowOrigins: APP, allowCredentials: true }
  const app = await besideCors(t, component, (other) => {
    other.put('/doc', { constraints: { version: '1.0.0' } }, async () => { runs++; return { written: true } })
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as import('node:net').AddressInfo).port}`
  const asked = await app.inject({ method: 'OPTIONS', url: '/api/doc', headers: { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'accept-version' } })
  notAnswered(t, asked, 'PUT /api/doc (versioned, unseen)')
  t.notOk(asked.headers['access-control-allow-credentials'], 'no credentials allowed')
  // Over a real socket, as a browser asks and decides.
  const preflightRes = await fetch(`${base}/api/doc`, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'accept-version' } })
  t.equal(preflightRes.status, 404)
  t.equal(preflightRes.headers.get('access-control-allow-origin'), null)
  t.equal(preflightRes.headers.get('access-control-allow-methods'), null)
  if (browserWouldSend(preflightRes, APP, 'PUT', ['accept-version'])) {
    await fetch(`${base}/api/doc`, { method: 'PUT', headers: { origin: APP, 'accept-version': '1.x' } })
  }
  // The route is real: a request that does reach it (curl, not a browser) runs it.
  t.equal((await app.inject({ method: 'PUT', url: '/api/doc', headers: { 'accept-version': 'x' } })).statusCode, 200)
  // A path with no route at all keeps the component's answer (D-CORS-11), and cors's own route its own.
  answered(t, await preflight(app, '/api/nothing', APP, 'PUT'), { 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true', 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, 'PUT /api/nothing (no route)')
  answered(t, await preflight(app, '/api/items', APP, 'GET'), { 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true', 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, 'GET /api/items')
  t.equal(runs, 1, 'only the direct PUT ran: no browser PUT followed the preflight')
})

// Issue 25 review, item 6 (D-CORS-17): a custom constraint strategy of the
// application's, which a preflight cannot carry a value for.
test('a route constrained by a custom strategy, declared where cors never saw it: its preflight is refused and the PUT never runs (D-CORS-17)', async (t) => {
  let runs = 0
  const tenant: ConstraintStrategy<HTTPVersion.V1, string> = {
    name: 'tenant',
    storage () {
      const stores = new Map<string, Handler<HTTPVersion.V1>>()
      return { get: (value: string) => stores.get(value) ?? null, set: (value: string, store: Handler<HTTPVersion.V1>) => { stores.set(value, store) } }
    },
    deriveConstraint: (request) => request.headers['x-tenant'] as string,
    validate () {},
    mustMatchWhenDerived: false
  }
  const app = Fastify({ constraints: { tenant } })
  t.teardown(() => app.close())
  await app.register(async (api) => {
    await api.register(corsPlugin, { allowOrigins: APP, allowCredentials: true })
    api.get('/items', async () => [])
  }, { prefix: '/api' })
  await app.register(async (other) => {
    other.put('/doc', { constraints: { tenant: 'acme' } }, async () => { runs++; return { written: true } })
  }, { prefix: '/api' })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as import('node:net').AddressInfo).port}`
  const asked = await app.inject({ method: 'OPTIONS', url: '/api/doc', headers: { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-tenant' } })
  notAnswered(t, asked, 'PUT /api/doc (tenant-constrained, unseen)')
  t.notOk(asked.headers['access-control-allow-credentials'], 'no credentials allowed')
  const preflightRes = await fetch(`${base}/api/doc`, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-tenant' } })
  t.equal(preflightRes.status, 404)
  t.equal(preflightRes.headers.get('access-control-allow-origin'), null)
  t.equal(preflightRes.headers.get('access-control-allow-methods'), null)
  if (browserWouldSend(preflightRes, APP, 'PUT', ['x-tenant'])) {
    await fetch(`${base}/api/doc`, { method: 'PUT', headers: { origin: APP, 'x-tenant': 'acme' } })
  }
  t.equal((await app.inject({ method: 'PUT', url: '/api/doc', headers: { 'x-tenant': 'acme' } })).statusCode, 200, 'the route is real')
  answered(t, await preflight(app, '/api/nothing', APP, 'PUT'), { 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true', 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, 'PUT /api/nothing (no route)')
  t.equal(runs, 1, 'only the direct PUT ran: no browser PUT followed the preflight')
})

test('boot warnings name the route: * with credentials, RegExp mistakes', async (t) => {
  const { app, lines } = await withLog({ allowOrigins: APP, allowCredentials: true }, (a) => {
    a.get('/any', { config: { cors: { allowOrigins: '*' } } }, async () => null)
    a.get('/loose', { config: { cors: { allowOrigins: /partner\.example$/ } } }, async () => null)
  })
  t.teardown(() => app.close())
  t.match(lines.map((l) => l.msg), [
    /^cors: route GET \/any: config\.cors\.allowOrigins "\*" with allowCredentials lets every site read credentialed responses/,
    /^cors: route GET \/loose: config\.cors\.allowOrigins: \/partner\\\.example\$\/ is not anchored/
  ])
  t.equal(lines.length, 2, 'once per route: HEAD shares its GET route\'s config')
})

test('bad config.cors values are boot errors naming the route and the key', async (t) => {
  const cases: Array<[unknown, CorsOptions, string, RegExp]> = [
    [true, {}, 'GATEHOUSE_CORS_INVALID_OPTIONS', /^cors options: route GET \/x: config\.cors: must be false or an object of cors options, not true$/],
    ['*', {}, 'GATEHOUSE_CORS_INVALID_OPTIONS', /route GET \/x: config\.cors: must be false or an object/],
    [{ allowOrigins: 'https://a.example/' }, {}, 'GATEHOUSE_CORS_INVALID_OPTIONS', /^cors options: route GET \/x: config\.cors\.allowOrigins: "https:\/\/a\.example\/" is not an origin/],
    [{ allowOrigins: /a/g }, {}, 'GATEHOUSE_CORS_INVALID_OPTIONS', /route GET \/x: config\.cors\.allowOrigins: \/a\/g: the g and y flags/],
    [{ allowMethods: 'GE T' }, {}, 'GATEHOUSE_CORS_INVALID_OPTIONS', /route GET \/x: config\.cors\.allowMethods: "GE T" is not a token/],
    [{ exposeHeaders: '*' }, { allowCredentials: true }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /route GET \/x: config\.cors\.exposeHeaders: "\*" is only a wildcard without credentials/],
    [{ maxAge: -1 }, {}, 'GATEHOUSE_CORE_INVALID_OPTIONS', /^route GET \/x: config\.cors\.maxAge: expected integer to be greater or equal to 0/],
    [{ allowCredentials: 'yes' }, {}, 'GATEHOUSE_CORE_INVALID_OPTIONS', /^route GET \/x: config\.cors\.allowCredentials: expected boolean/],
    [{ strictPreflight: true }, {}, 'GATEHOUSE_CORE_INVALID_OPTIONS', /^route GET \/x: config\.cors\.strictPreflight: unknown option/],
    [{ allowOrigin: APP }, {}, 'GATEHOUSE_CORE_INVALID_OPTIONS', /^route GET \/x: config\.cors\.allowOrigin: unknown option/]
  ]
  for (const [cors, component, code, message] of cases) {
    const app = Fastify()
    await app.register(corsPlugin, component)
    app.register(async (c) => { c.get('/x', { config: { cors: cors as never } }, async () => null) })
    await t.rejects(async () => { await app.ready() }, { code, message }, JSON.stringify(cors) ?? String(cors))
    await app.close()
  }
})

test('one method and path under two constraints: the same config.cors, or a boot error (a preflight cannot tell them apart)', async (t) => {
  const shared = { allowOrigins: PARTNER }
  const ok = Fastify()
  t.teardown(() => ok.close())
  await ok.register(corsPlugin, COMPONENT)
  ok.get('/v', { constraints: { version: '1.0.0' }, config: { cors: shared } }, async () => ({ v: 1 }))
  ok.get('/v', { constraints: { version: '2.0.0' }, config: { cors: shared } }, async () => ({ v: 2 }))
  await ok.ready()
  answered(t, await preflight(ok, '/v', PARTNER, 'GET'), { 'access-control-allow-origin': PARTNER, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, 'GET /v')
  const v2 = await ok.inject({ url: '/v', headers: { origin: PARTNER, 'accept-version': '2.x' } })
  t.same(v2.json(), { v: 2 })
  t.equal(v2.headers['access-control-allow-origin'], PARTNER)

  const bad = Fastify()
  await bad.register(corsPlugin, COMPONENT)
  bad.register(async (c) => {
    c.get('/v', { constraints: { version: '1.0.0' }, config: { cors: { allowOrigins: PARTNER } } }, async () => ({ v: 1 }))
    c.get('/v', { constraints: { version: '2.0.0' } }, async () => ({ v: 2 }))
  })
  await t.rejects(async () => { await bad.ready() }, { code: 'GATEHOUSE_CORS_INVALID_OPTIONS', message: /config\.cors of route GET \/v: differs from that of GET \/v \(same method and path, other constraints\)/ })
  await bad.close()
})

test('one pattern under two constraints with other parameter names boots (the mirror sees one pattern); differing config.cors is a boot error naming both', async (t) => {
  const ok = Fastify()
  t.teardown(() => ok.close())
  await ok.register(corsPlugin, COMPONENT)
  ok.get('/a/:id', { constraints: { host: 'a.example' } }, async (request) => ({ a: (request.params as { id: string }).id }))
  ok.get('/a/:name', { constraints: { host: 'b.example' } }, async (request) => ({ b: (request.params as { name: string }).name }))
  await ok.ready()
  const a = await ok.inject({ url: '/a/1', headers: { host: 'a.example', origin: APP } })
  t.same(a.json(), { a: '1' })
  t.equal(a.headers['access-control-allow-origin'], APP)
  const b = await ok.inject({ url: '/a/2', headers: { host: 'b.example', origin: APP } })
  t.same(b.json(), { b: '2' })
  answered(t, await ok.inject({ method: 'OPTIONS', url: '/a/2', headers: { host: 'b.example', origin: APP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-a' } }), { 'access-control-allow-origin': APP, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': 'x-a', 'access-control-max-age': '600' }, 'GET /a/2')

  const bad = Fastify()
  await bad.register(corsPlugin, COMPONENT)
  bad.register(async (c) => {
    c.get('/a/:id', { constraints: { host: 'a.example' }, config: { cors: false } }, async () => 'a')
    c.get('/a/:name', { constraints: { host: 'b.example' } }, async () => 'b')
  })
  await t.rejects(async () => { await bad.ready() }, { code: 'GATEHOUSE_CORS_INVALID_OPTIONS', message: 'cors options: config.cors of route GET /a/:name: differs from that of GET /a/:id (same method and path, other constraints); a preflight cannot tell them apart, so give them the same config.cors object' })
  await bad.close()
})
