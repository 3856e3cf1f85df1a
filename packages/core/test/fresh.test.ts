// The `fresh` route option (issue 16, item 5): how recent the caller's
// sign-in must be. Compiled at boot like authRule, checked right after it.
// D-RULES-09, D-RULES-10, D-ERRORS-13.
import { test, type Test } from 'tap'
import Fastify from 'fastify'
import { Avatar, isFresh, MAX_FRESH_SECONDS, middlewareChain, ReauthenticateError, trackRouteRules } from '@fastify-gatehouse/core'
import { fakeDateNow } from '../../../test-helpers/clock.js'
import { fakeAuthComponents } from './helpers/fake-auth.js'

// An auth stand-in: `x-user: name:tag1,tag2` is the caller, `x-authenticated-at` its sign-in time.
const CHALLENGE_600 = 'Bearer realm="gatehouse", error="insufficient_user_authentication", error_description="A more recent sign-in is required", max_age="600"'
const REAUTH_600 = { statusCode: 401, code: 'GATEHOUSE_CORE_REAUTHENTICATE', error: 'Unauthorized', message: 'This route needs a sign-in within the last 600 seconds; sign in again' }
const FORBIDDEN = { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message: 'Insufficient permissions for this route' }

async function build (t: Test) {
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, {}, { components: fakeAuthComponents() })
  let parsed = 0
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    parsed++
    done(null, JSON.parse(body as string))
  })
  app.get('/recent', { fresh: 600 }, async (req) => ({ caller: req.scope.auth?.identity }))
  app.get('/config-recent', { config: { fresh: 600 } }, async () => 'ok')
  app.get('/admin-recent', { authRule: 'admin', fresh: 600 }, async () => 'admin')
  app.post('/change', { config: { authRule: 'admin', fresh: 600 } }, async (req) => ({ received: req.body }))
  await app.register(async (child) => { child.get('/recent', { fresh: 60 }, async () => 'child') }, { prefix: '/child' })
  await app.ready()
  return { app, parsed: () => parsed }
}

test('a caller signed in within `fresh` seconds passes; older, unknown or anonymous get 401 REAUTHENTICATE', async (t) => {
  const clock = fakeDateNow(t)
  const { app } = await build(t)
  const now = clock.now()
  const cases: Array<[string, Record<string, string>, number]> = [
    ['just now', { 'x-user': 'alice', 'x-authenticated-at': String(now) }, 200],
    ['exactly 600 s ago', { 'x-user': 'alice', 'x-authenticated-at': String(now - 600_000) }, 200],
    ['600 s and 1 ms ago', { 'x-user': 'alice', 'x-authenticated-at': String(now - 600_001) }, 401],
    ['a day ago', { 'x-user': 'alice', 'x-authenticated-at': String(now - 86_400_000) }, 401],
    ['unknown (authenticatedAt null)', { 'x-user': 'alice' }, 401],
    ['anonymous', {}, 401]
  ]
  for (const url of ['/recent', '/config-recent']) {
    for (const [name, headers, status] of cases) {
      const res = await app.inject({ url, headers })
      t.equal(res.statusCode, status, `${url}, ${name}`)
      if (status === 401) {
        // No errors component here: Fastify's own handler sends the error's headers and code.
        t.same(res.json(), REAUTH_600, `${url}, ${name}: the body`)
        t.equal(res.headers['www-authenticate'], CHALLENGE_600, `${url}, ${name}: the RFC 9470 challenge`)
      }
    }
  }
  t.same((await app.inject({ url: '/recent', headers: { 'x-user': 'alice', 'x-authenticated-at': String(now) } })).json(), { caller: 'alice' })
})

test('the clock moves: a fresh caller becomes stale once `fresh` seconds have passed', async (t) => {
  const clock = fakeDateNow(t)
  const { app } = await build(t)
  const headers = { 'x-user': 'alice', 'x-authenticated-at': String(clock.now()) }
  t.equal((await app.inject({ url: '/child/recent', headers })).statusCode, 200)
  clock.advance(60_000)
  t.equal((await app.inject({ url: '/child/recent', headers })).statusCode, 200, 'at 60 s, still fresh')
  clock.advance(1)
  const stale = await app.inject({ url: '/child/recent', headers })
  t.equal(stale.statusCode, 401, 'past 60 s, stale')
  t.match(stale.headers['www-authenticate'], /, max_age="60"$/, 'max_age is the route\'s own fresh')
})

test('the authRule comes first: a caller who may not call the route gets 403, stale or not', async (t) => {
  const clock = fakeDateNow(t)
  const { app } = await build(t)
  const recent = String(clock.now())
  const old = String(clock.now() - 3_600_000)
  const cases: Array<[string, Record<string, string>, number, object]> = [
    ['anonymous', {}, 403, FORBIDDEN],
    ['without the tag, stale', { 'x-user': 'bob:ops', 'x-authenticated-at': old }, 403, FORBIDDEN],
    ['without the tag, fresh', { 'x-user': 'bob:ops', 'x-authenticated-at': recent }, 403, FORBIDDEN],
    ['with the tag, stale', { 'x-user': 'alice:admin', 'x-authenticated-at': old }, 401, REAUTH_600],
    ['with the tag, never signed in (an API key)', { 'x-user': 'alice:admin' }, 401, REAUTH_600]
  ]
  for (const [name, headers, status, body] of cases) {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await app.inject({ method, url: '/admin-recent', headers })
      t.equal(res.statusCode, status, `${method} ${name}`)
      if (method === 'GET') t.same(res.json(), body, `${name}: the body`)
    }
  }
  const ok = await app.inject({ url: '/admin-recent', headers: { 'x-user': 'alice:admin', 'x-authenticated-at': recent } })
  t.equal(ok.statusCode, 200)
  t.equal(ok.body, 'admin')
})

test('a stale caller\'s body is never parsed', async (t) => {
  const clock = fakeDateNow(t)
  const { app, parsed } = await build(t)
  const stale = await app.inject({ method: 'POST', url: '/change', payload: { n: 1 }, headers: { 'x-user': 'alice:admin', 'x-authenticated-at': String(clock.now() - 601_000) } })
  t.equal(stale.statusCode, 401)
  t.equal(stale.json().code, 'GATEHOUSE_CORE_REAUTHENTICATE')
  t.equal(parsed(), 0)
  const ok = await app.inject({ method: 'POST', url: '/change', payload: { n: 1 }, headers: { 'x-user': 'alice:admin', 'x-authenticated-at': String(clock.now()) } })
  t.equal(ok.statusCode, 200)
  t.same(ok.json(), { received: { n: 1 } })
  t.equal(parsed(), 1)
})

test('a bad fresh fails at boot naming the route, the value and the problem', async (t) => {
  const range = `must be a whole number of seconds from 1 to ${MAX_FRESH_SECONDS} (one year)`
  for (const [options, message] of [
    [{ fresh: 0 }, `Invalid fresh 0 on GET /bad: ${range}`],
    [{ fresh: -5 }, `Invalid fresh -5 on GET /bad: ${range}`],
    [{ fresh: 1.5 }, `Invalid fresh 1.5 on GET /bad: ${range}`],
    [{ fresh: Number.NaN }, `Invalid fresh NaN on GET /bad: ${range}`],
    [{ fresh: Number.POSITIVE_INFINITY }, `Invalid fresh Infinity on GET /bad: ${range}`],
    [{ fresh: MAX_FRESH_SECONDS + 1 }, `Invalid fresh 31536001 on GET /bad: ${range}`],
    [{ fresh: '600' }, `Invalid fresh "600" on GET /bad: ${range}`],
    [{ config: { fresh: null } }, `Invalid fresh null on GET /bad: ${range}`],
    [{ config: { fresh: true } }, `Invalid fresh true on GET /bad: ${range}`],
    [{ config: { fresh: 600 }, fresh: 60 }, 'Invalid fresh 600 / 60 on GET /bad: config.fresh and fresh disagree'],
    [{ authRule: 'admin', fresh: 0 }, `Invalid fresh 0 on GET /bad: ${range}`]
  ] as const) {
    const app = Fastify()
    await middlewareChain(app, {}, { components: [] })
    t.throws(() => app.get('/bad', options as never, async () => 'x'), { code: 'GATEHOUSE_CORE_INVALID_FRESH', message }, JSON.stringify(options))
    await app.close()
  }
})

test('the bounds are accepted, and both spellings agreeing are one option', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, {}, { components: fakeAuthComponents() })
  app.get('/one', { fresh: 1 }, async () => 'one')
  app.get('/year', { fresh: MAX_FRESH_SECONDS }, async () => 'year')
  app.get('/both', { fresh: 30, config: { fresh: 30 } }, async () => 'both')
  await app.ready()
  const headers = { 'x-user': 'alice', 'x-authenticated-at': String(Date.now()) }
  for (const url of ['/one', '/year', '/both']) t.equal((await app.inject({ url, headers })).statusCode, 200, url)
  t.equal((await app.inject('/year')).statusCode, 401)
})

test('with no auth at all, a fresh route is a 401 REAUTHENTICATE', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, {}, { components: [] })
  app.get('/recent', { fresh: 600 }, async () => 'recent')
  const res = await app.inject('/recent')
  t.equal(res.statusCode, 401)
  t.same(res.json(), REAUTH_600)
})

test('a tracked app: a fresh route declared before the chain fails at ready(), naming the option and the route', async (t) => {
  for (const [options, what] of [
    [{ fresh: 600 }, 'fresh'],
    [{ config: { fresh: 600 } }, 'fresh'],
    [{ authRule: 'admin', fresh: 600 }, 'authRule and fresh']
  ] as const) {
    const app = Fastify()
    trackRouteRules(app)
    app.get('/early', options, async () => 'served open')
    await middlewareChain(app, {}, { components: fakeAuthComponents() })
    app.get('/late', { fresh: 600 }, async () => 'late')
    await t.rejects(async () => { await app.ready() }, {
      code: 'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE',
      message: `${what} cannot be enforced on GET /early, HEAD /early: the route was declared before the Gatehouse chain or outside its instance tree; declare routes after middlewareChain`
    }, JSON.stringify(options))
    await app.close()
  }
})

test('an untracked app: a fresh route declared before the chain fails at ready()', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.get('/early', { fresh: 600 }, async () => 'served open')
  await middlewareChain(app, {}, { components: fakeAuthComponents() })
  await t.rejects(async () => { await app.ready() }, { code: 'GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN', message: /could not be seen; .*\/early \(GET, HEAD\)$/s })
})

// Issue 26, item 1 changed this from a per-request refusal to a boot error (D-RULES-16).
test('a fresh set after the chain compiled the route (a later onRoute hook) fails ready(), naming the route', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, {}, { components: fakeAuthComponents() })
  app.addHook('onRoute', (route) => { route.config = { ...route.config, fresh: 600 } })
  app.get('/late-fresh', async () => 'served open')
  await t.rejects(async () => { await app.ready() }, {
    code: 'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE',
    message: 'fresh cannot be enforced on GET /late-fresh, HEAD /late-fresh: it was set after the Gatehouse chain compiled the route (by an onRoute hook added after the chain\'s); set it in the route\'s options, or add that hook before middlewareChain'
  })
})

test('isFresh and ReauthenticateError', async (t) => {
  const at = 1_700_000_000_000
  const avatar = new Avatar('alice', { backend: 'session', authenticatedAt: at })
  t.equal(avatar.authenticatedAt, at)
  t.equal(new Avatar('k', { backend: 'api_key' }).authenticatedAt, null, 'null by default')
  t.same(JSON.parse(JSON.stringify(avatar)), { identity: 'alice', tags: [], backend: 'session' }, 'toJSON keeps its shape')
  t.ok(isFresh(avatar, 10, at + 10_000))
  t.notOk(isFresh(avatar, 10, at + 10_001))
  t.notOk(isFresh(null, 10, at))
  t.notOk(isFresh(new Avatar('k', { backend: 'api_key', authenticatedAt: null }), MAX_FRESH_SECONDS, at))
  // An Avatar of a copy of core that predates authenticatedAt has no such field.
  t.notOk(isFresh({ identity: 'old', tags: [], backend: 'basic' } as unknown as Avatar, MAX_FRESH_SECONDS, at))
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '1700000000000', new Date(at)]) {
    t.throws(() => new Avatar('alice', { backend: 'session', authenticatedAt: bad as never }), { code: 'GATEHOUSE_CORE_INVALID_AVATAR', message: /authenticatedAt must be a finite number/ })
  }
  const err = new ReauthenticateError(300)
  t.equal(err.statusCode, 401)
  t.equal(err.code, 'GATEHOUSE_CORE_REAUTHENTICATE')
  t.equal(err.maxAge, 300)
  t.equal(err.headers['www-authenticate'], CHALLENGE_600.replace('"600"', '"300"'))
  for (const bad of [0, 1.5, Number.NaN, MAX_FRESH_SECONDS + 1]) {
    t.throws(() => new ReauthenticateError(bad), { code: 'GATEHOUSE_CORE_INVALID_HTTP_ERROR', message: /maxAge must be a whole number of seconds/ }, String(bad))
  }
})
