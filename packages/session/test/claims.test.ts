// A sign-in's verified claims (an OIDC id_token's) are kept with the
// session and given back on every request as request.scope.auth.claims,
// frozen; sessions signed in without claims have null.
import { test } from 'tap'
import Fastify from 'fastify'
import { Avatar, middlewareChain } from '@fastify-gatehouse/core'
import { MAX_SESSION_CLAIMS_BYTES, MemorySessionStore, recordFromStored, Session, sessionKey, storedRecordJson, type SessionRecord, type SessionStore } from '@fastify-gatehouse/session'
import { components, sessionCookie } from './helpers/build.js'

const CLAIMS = { iss: 'https://idp.example', sub: 'u-1', aud: ['app'], auth_time: 1_700_000_000, email: 'alice@example.com', address: { country: 'FR' }, groups: ['a', 'b'] }

async function build (store: SessionStore = new MemorySessionStore(), seen: Array<Avatar | null> = []) {
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: { store } } }, { components })
  app.addHook('onResponse', async (req) => { seen.push(req.scope.auth) })
  app.post<{ Body: { claims?: unknown } }>('/login', async (req) => {
    const { claims } = req.body
    req.scope.session!.login('alice', 'member', claims === undefined ? { via: 'password' } : { via: 'oidc:corp', claims: claims as Record<string, unknown> })
    return { ok: true }
  })
  app.post('/put', async (req) => { req.scope.session!.set('k', 1); return { ok: true } })
  app.post('/regenerate', async (req) => { req.scope.session!.regenerate(); return { ok: true } })
  app.post('/logout-then-put', async (req) => { req.scope.session!.logout(); req.scope.session!.set('k', 2); return { ok: true } })
  app.get('/claims', async (req) => ({ claims: req.scope.auth === null ? 'no caller' : req.scope.auth.claims, frozen: Object.isFrozen(req.scope.auth?.claims) }))
  app.get('/mutate', async (req) => {
    const claims = req.scope.auth!.claims as Record<string, unknown> & { address: Record<string, unknown> }
    const errors: string[] = []
    for (const change of [() => { claims.sub = 'admin' }, () => { claims.address.country = 'XX' }, () => { delete claims.email }]) {
      try {
        change()
      } catch (err) {
        errors.push((err as Error).name)
      }
    }
    return { errors, sub: claims.sub }
  })
  app.get('/avatar', async (req) => ({ json: JSON.stringify(req.scope.auth), keys: Object.keys(req.scope.auth ?? {}) }))
  await app.ready()
  return app
}

test('login claims: on every later request, frozen, kept by writes and a new id; gone with logout', async (t) => {
  const store = new MemorySessionStore()
  const app = await build(store)
  t.teardown(() => app.close())
  const cookieOf = (res: { headers: Record<string, unknown> }) => `session_id=${sessionCookie(res)!}`
  let cookie = cookieOf(await app.inject({ method: 'POST', url: '/login', payload: { claims: CLAIMS } }))
  t.same((await app.inject({ url: '/claims', headers: { cookie } })).json(), { claims: CLAIMS, frozen: true })
  t.same((await app.inject({ url: '/mutate', headers: { cookie } })).json(), { errors: ['TypeError', 'TypeError', 'TypeError'], sub: 'u-1' }, 'a route cannot change them, nested values neither')
  t.same((await app.inject({ url: '/claims', headers: { cookie } })).json().claims, CLAIMS, 'nor for the next request')
  t.same((await app.inject({ url: '/avatar', headers: { cookie } })).json(), { json: '{"identity":"alice","tags":["member"],"backend":"session"}', keys: ['identity', 'tags', 'backend'] }, 'not in toJSON nor a spread')

  await app.inject({ method: 'POST', url: '/put', headers: { cookie } })
  cookie = cookieOf(await app.inject({ method: 'POST', url: '/regenerate', headers: { cookie } }))
  t.same((await app.inject({ url: '/claims', headers: { cookie } })).json().claims, CLAIMS, 'a write and a new id keep them')
  t.same((await store.get(sessionKey(cookie.slice('session_id='.length))))?.claims, CLAIMS, 'in the record')

  cookie = cookieOf(await app.inject({ method: 'POST', url: '/logout-then-put', headers: { cookie } }))
  t.equal((await store.get(sessionKey(cookie.slice('session_id='.length))))?.claims, undefined, 'a session started after logout has none')
})

test('a sign-in without claims (a password) has null claims; a later sign-in with claims replaces the session', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  let cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: {} }))!}`
  t.same((await app.inject({ url: '/claims', headers: { cookie } })).json(), { claims: null, frozen: true })
  cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { claims: { sub: 'x' } }, headers: { cookie } }))!}`
  t.same((await app.inject({ url: '/claims', headers: { cookie } })).json().claims, { sub: 'x' })
  cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: {}, headers: { cookie } }))!}`
  t.same((await app.inject({ url: '/claims', headers: { cookie } })).json().claims, null, 'signing in again without claims drops them')
})

test('the session avatar is built once per record: a hit hands back the same avatar and claims', async (t) => {
  const seen: Array<Avatar | null> = []
  const app = await build(new MemorySessionStore(), seen)
  t.teardown(() => app.close())
  const cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { claims: CLAIMS } }))!}`
  seen.length = 0
  await Promise.all(Array.from({ length: 20 }, async () => await app.inject({ url: '/claims', headers: { cookie } })))
  t.equal(seen.length, 20)
  t.ok(seen.every((a) => a === seen[0]), 'one avatar for the record')
  t.ok(seen.every((a) => a!.claims === seen[0]!.claims && a!.claims !== null), 'one frozen claims object')
})

test('login refuses claims a session could not carry, without showing them', async (t) => {
  const session = new Session({ idleTtl: 60_000, absoluteTtl: 600_000, touchInterval: 1000 }, Date.now())
  const invalid = (message: RegExp) => ({ code: 'GATEHOUSE_SESSION_INVALID_LOGIN', message })
  for (const bad of ['sub', ['a'], 7, new Map(), new Date()]) {
    t.throws(() => session.login('alice', [], { claims: bad as never }), invalid(/options\.claims must be a plain object/), `${Object.prototype.toString.call(bad)}`)
  }
  const cycle: Record<string, unknown> = { secret: 'personal' }
  cycle.self = cycle
  t.throws(() => session.login('alice', [], { claims: cycle }), invalid(/^session\.login: options\.claims must be JSON data/))
  t.throws(() => session.login('alice', [], { claims: { n: 10n } }), invalid(/must be JSON data/))
  let deep: unknown = 'bottom'
  for (let i = 0; i < 40; i++) deep = { deep }
  t.throws(() => session.login('alice', [], { claims: deep as Record<string, unknown> }), invalid(/nested too deeply/))
  // The limit counts bytes: an e-acute is two.
  const room = MAX_SESSION_CLAIMS_BYTES - '{"n":""}'.length
  t.doesNotThrow(() => session.login('alice', [], { claims: { n: 'x'.repeat(room) } }), 'exactly at the limit')
  t.throws(() => session.login('alice', [], { claims: { n: 'x'.repeat(room + 1) } }), invalid(/take 4097 bytes as JSON, more than 4096$/))
  t.throws(() => session.login('alice', [], { claims: { n: 'é'.repeat(room / 2 + 1) } }), invalid(/more than 4096$/))
  try {
    session.login('alice', [], { claims: { secret: 'personal-data', n: 'x'.repeat(5000) } })
  } catch (err) {
    t.notMatch((err as Error).message, 'personal-data', 'no claim in the message')
  }
  t.doesNotThrow(() => session.login('alice', [], { claims: null }))
})

test('the shared stores\' JSON keeps claims; a record without (before the field, a password session) has none', async (t) => {
  const base: SessionRecord = { identity: 'alice', tags: ['t'], data: {}, createdAt: 1000, expiresAt: 2000, version: 3, via: 'oidc:corp', stamp: null }
  const written = { ...base, claims: CLAIMS }
  t.same(recordFromStored(JSON.parse(storedRecordJson(written)), 2000, 3), written)
  t.notMatch(storedRecordJson({ ...base, claims: null }), 'claims', 'null is not written')
  const old = recordFromStored(JSON.parse(storedRecordJson(base)), 2000, 3)!
  t.same(old, base)
  t.equal(old.claims, undefined, 'absent: none')
  for (const bad of ['x', [1], 5, null]) {
    const stored = { ...JSON.parse(storedRecordJson(base)), claims: bad }
    t.equal(recordFromStored(stored, 2000, 3)?.claims, undefined, `claims ${JSON.stringify(bad)} read as none`)
  }
})
