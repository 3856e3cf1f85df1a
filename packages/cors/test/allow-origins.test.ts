// allowOrigins beyond a list of strings (issue 17, item 5): RegExps, lists
// mixing strings and RegExps, and a function (sync or async), with the
// classic mistakes caught at boot and the opaque origin never echoed.
import { test } from 'tap'
import Fastify from 'fastify'
import { corsPlugin, type OriginFunction } from '@fastify-gatehouse/cors'
import { build, corsHeaders, withLog } from './helpers/build.js'

const APP = 'https://app.example.com'
const SUB = /^https:\/\/[a-z0-9-]+\.example\.com$/

const get = (app: Awaited<ReturnType<typeof build>>, origin: string, url = '/open') => app.inject({ url, headers: { origin } })

test('a RegExp: matching origins are echoed with Vary: Origin, others get nothing', async (t) => {
  const app = await build({ allowOrigins: SUB })
  t.teardown(() => app.close())
  for (const origin of [APP, 'https://admin.example.com']) {
    const res = await get(app, origin)
    t.equal(res.statusCode, 200)
    t.same(corsHeaders(res), { 'access-control-allow-origin': origin }, `${origin}: echoed, not *`)
    t.equal(res.headers.vary, 'Origin')
  }
  for (const origin of ['https://example.com.evil.example', 'https://evilexample.com', 'http://app.example.com', 'https://APP.example.com', 'null', `${APP}/path`]) {
    const res = await get(app, origin)
    t.equal(res.statusCode, 200, `${origin}: served (CORS is the browser's check)`)
    t.same(corsHeaders(res), {}, `${origin}: no CORS header`)
    t.equal(res.headers.vary, 'Origin')
  }
  // The same RegExp object, many times over: no state carried between tests.
  for (let i = 0; i < 3; i++) t.equal((await get(app, APP)).headers['access-control-allow-origin'], APP)
})

test('a list mixing strings and RegExps, and a preflight answered for a RegExp match', async (t) => {
  const app = await build({ allowOrigins: ['http://localhost:3000', SUB], allowCredentials: true })
  t.teardown(() => app.close())
  t.same(corsHeaders(await get(app, 'http://localhost:3000')), { 'access-control-allow-origin': 'http://localhost:3000', 'access-control-allow-credentials': 'true' })
  t.same(corsHeaders(await get(app, 'https://shop.example.com')), { 'access-control-allow-origin': 'https://shop.example.com', 'access-control-allow-credentials': 'true' })
  t.same(corsHeaders(await get(app, 'http://localhost:4000')), {})
  t.same(corsHeaders(await get(app, 'null')), {}, 'null: never echoed, never shown to a RegExp (D-CORS-03)')
  const preflight = await app.inject({ method: 'OPTIONS', url: '/open', headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'PUT' } })
  t.equal(preflight.statusCode, 204)
  t.same(corsHeaders(preflight), {
    'access-control-allow-origin': 'https://shop.example.com',
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS',
    'access-control-max-age': '600'
  })
  t.equal(preflight.headers.vary, 'Origin, Access-Control-Request-Headers')
  const refused = await app.inject({ method: 'OPTIONS', url: '/open', headers: { origin: 'https://shop.example.net', 'access-control-request-method': 'PUT' } })
  t.equal(refused.statusCode, 404, 'a disallowed origin\'s preflight is not answered')
  t.same(corsHeaders(refused), {})
})

test('* in a list with RegExps: any origin gets *, null too (nothing exposed without credentials)', async (t) => {
  const app = await build({ allowOrigins: ['*', SUB] })
  t.teardown(() => app.close())
  t.same(corsHeaders(await get(app, 'https://anything.example')), { 'access-control-allow-origin': '*' })
  t.same(corsHeaders(await get(app, 'null')), { 'access-control-allow-origin': '*' })
})

test('a function: true echoes the origin; false, a throw, a rejection or a non-boolean give no CORS header and never a 500', async (t) => {
  const seen: string[] = []
  const decide: OriginFunction = async (origin, request) => {
    seen.push(`${request.method} ${origin}`)
    if (origin === 'https://throws.example') throw new Error('lookup failed')
    if (origin === 'https://rejects.example') return await Promise.reject(new Error('store down'))
    if (origin === 'https://odd.example') return 'yes' as unknown as boolean
    return origin.endsWith('.example.com')
  }
  const { app, lines } = await withLog({ allowOrigins: decide, allowCredentials: true }, (a) => {
    a.get('/open', async () => ({ open: true }))
    a.get('/off', { config: { cors: false } }, async () => ({ off: true }))
  })
  t.teardown(() => app.close())
  // A route without CORS never calls the function (as with @fastify/cors).
  const off = await app.inject({ url: '/off', headers: { origin: APP } })
  t.same(off.json(), { off: true })
  t.same(corsHeaders(off), {})
  t.equal(off.headers.vary, undefined)
  const ok = await app.inject({ url: '/open', headers: { origin: APP } })
  t.equal(ok.statusCode, 200)
  t.same(corsHeaders(ok), { 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true' })
  t.equal(ok.headers.vary, 'Origin')
  for (const origin of ['https://other.example', 'https://throws.example', 'https://rejects.example', 'https://odd.example']) {
    const res = await app.inject({ url: '/open', headers: { origin } })
    t.equal(res.statusCode, 200, `${origin}: served`)
    t.same(res.json(), { open: true })
    t.same(corsHeaders(res), {}, `${origin}: not allowed`)
    t.equal(res.headers.vary, 'Origin')
  }
  t.match(lines.filter((l) => l.level === 50), [
    { msg: /allowOrigins function failed; the origin is taken as not allowed/, err: { message: 'lookup failed' } },
    { msg: /allowOrigins function failed/, err: { message: 'store down' } },
    { msg: /answered string, not a boolean/ }
  ])
  // A preflight through the function.
  const preflight = await app.inject({ method: 'OPTIONS', url: '/open', headers: { origin: APP, 'access-control-request-method': 'DELETE' } })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], APP)
  t.equal(preflight.headers['access-control-allow-methods'], 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS')
  // The opaque origin and what is not an origin never reach it.
  for (const origin of ['null', 'https://APP.example.com', 'app.example.com', `https://${'a'.repeat(300)}.example.com`]) {
    const res = await app.inject({ url: '/open', headers: { origin } })
    t.same(corsHeaders(res), {}, `${origin.slice(0, 40)}: not allowed`)
  }
  t.same(seen, ['GET https://app.example.com', 'GET https://other.example', 'GET https://throws.example', 'GET https://rejects.example', 'GET https://odd.example', 'OPTIONS https://app.example.com'])
})

test('a synchronous function that throws: no CORS header, logged, the route still answers', async (t) => {
  const { app, lines } = await withLog({ allowOrigins: (origin) => { if (origin.includes('bad')) throw new TypeError('bad input'); return true } }, (a) => {
    a.get('/', async () => 'ok')
  })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/', headers: { origin: 'https://bad.example' } })
  t.equal(res.statusCode, 200)
  t.equal(res.body, 'ok')
  t.same(corsHeaders(res), {})
  t.match(lines, [{ level: 50, err: { message: 'bad input' } }])
  t.same(corsHeaders(await app.inject({ url: '/', headers: { origin: 'https://good.example' } })), { 'access-control-allow-origin': 'https://good.example' })
})

test('the async function under concurrency: each request gets its own answer over real sockets', async (t) => {
  // Answers come back in another order than asked: later origins settle first.
  let calls = 0
  const decide: OriginFunction = async (origin) => {
    calls++
    const n = Number(/^https:\/\/o(\d+)\.example$/.exec(origin)?.[1] ?? -1)
    for (let i = 0; i < (60 - n) % 7; i++) await new Promise((resolve) => setImmediate(resolve))
    return n % 3 !== 0
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(corsPlugin, { allowOrigins: decide, allowCredentials: true, exposeHeaders: 'x-n' })
  app.get('/n', async (request, reply) => { reply.header('x-n', request.headers.origin); return { origin: request.headers.origin } })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const origins = Array.from({ length: 60 }, (_, i) => `https://o${i}.example`)
  const results = await Promise.all(origins.map(async (origin, i) => {
    const preflight = i % 2 === 0
    const res = await fetch(`${base}/n`, preflight
      ? { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': `x-${i}` } }
      : { headers: { origin } })
    const body = await res.text()
    return { i, origin, preflight, status: res.status, acao: res.headers.get('access-control-allow-origin'), acah: res.headers.get('access-control-allow-headers'), body }
  }))
  t.equal(calls, 60)
  for (const r of results) {
    const allowed = r.i % 3 !== 0
    if (r.preflight) {
      t.equal(r.status, allowed ? 204 : 404, `${r.origin}: preflight`)
      t.equal(r.acao, allowed ? r.origin : null, `${r.origin}: its own origin`)
      t.equal(r.acah, allowed ? `x-${r.i}` : null, `${r.origin}: its own headers`)
    } else {
      t.equal(r.status, 200)
      t.same(JSON.parse(r.body), { origin: r.origin }, `${r.origin}: its own body`)
      t.equal(r.acao, allowed ? r.origin : null, `${r.origin}: its own origin`)
    }
  }
})

test('RegExp mistakes: g and y are boot errors; unanchored, split alternatives and bare dots are boot warnings', async (t) => {
  for (const bad of [/example\.com$/g, /^https:\/\/a\.example$/y, [APP, /x/gi]]) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(corsPlugin, { allowOrigins: bad }).ready() }, {
      code: 'GATEHOUSE_CORS_INVALID_OPTIONS',
      message: /^cors options: allowOrigins: \/.*\/[a-z]*: the g and y flags make RegExp\.test\(\) stateful/
    }, String(bad))
    await app.close()
  }
  for (const [bad, message] of [
    [[{}], /\[object Object\] is neither an origin string nor a RegExp/],
    [[APP, 'https://b.example/'], /"https:\/\/b\.example\/" is not an origin/],
    [[], /is empty/]
  ] as const) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(corsPlugin, { allowOrigins: bad as never }).ready() }, { code: 'GATEHOUSE_CORS_INVALID_OPTIONS', message }, JSON.stringify(bad))
    await app.close()
  }

  const { app, lines } = await withLog({ allowOrigins: [/example\.com/, /^https:\/\/a\.example$|^https:\/\/b\.example$/, /^https:\/\/app.example\.com$/, SUB, /^https:\/\/(?:a|b)\.example$/] })
  t.teardown(() => app.close())
  t.match(lines.map((l) => l.msg), [
    /^cors: allowOrigins: \/example\\\.com\/ is not anchored with \^ and \$, so it also matches origins that merely contain a match/,
    /^cors: allowOrigins: .* has alternatives outside a group, so \^ anchors only the first and \$ only the last/,
    /^cors: allowOrigins: \/\^https:\\\/\\\/app\.example\\\.com\$\/ has an unescaped "\." between names/
  ])
  t.equal(lines.length, 3, 'the anchored ones, with groups and escaped dots, are not warned about')
  // Warned, not refused: the RegExp works as written.
  t.equal((await app.inject({ url: '/', headers: { origin: 'https://example.com.attacker.net' } })).headers['access-control-allow-origin'], 'https://example.com.attacker.net')
})
