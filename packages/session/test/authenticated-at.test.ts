// A session caller proved who they are when they signed in: the session
// avatar's authenticatedAt is its record's createdAt (signing in starts a new
// record), and a route's `fresh` counts from there.
import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { recordFromStored, Session, storedRecordJson, type SessionRecord } from '@fastify-gatehouse/session'
import { components, sessionCookie } from './helpers/build.js'
import { fakeDateNow } from '../../../test-helpers/clock.js'

async function build () {
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: {} } }, { components })
  app.post<{ Body: { identity: string, authenticatedAt?: number | null } }>('/login', async (req) => {
    const { authenticatedAt } = req.body
    req.scope.session!.login(req.body.identity, 'member', authenticatedAt === undefined ? {} : { authenticatedAt })
    return { ok: true }
  })
  app.post('/put', async (req) => { req.scope.session!.set('k', 1); return { ok: true } })
  app.post('/regenerate', async (req) => { req.scope.session!.regenerate(); return { ok: true } })
  app.get('/at', async (req) => ({ at: req.scope.auth?.authenticatedAt, signedInAt: req.scope.session?.signedInAt }))
  app.get('/recent', { authRule: 'member', fresh: 600 }, async (req) => ({ hello: req.scope.auth?.identity }))
  await app.ready()
  return app
}

test('the session avatar\'s authenticatedAt is the sign-in time; fresh counts from it', async (t) => {
  const clock = fakeDateNow(t)
  const app = await build()
  t.teardown(() => app.close())
  const signedIn = clock.now()
  let cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!}`
  t.same((await app.inject({ url: '/at', headers: { cookie } })).json(), { at: signedIn, signedInAt: signedIn })

  clock.advance(300_000)
  // Writing to the session or giving it a new id is not signing in.
  await app.inject({ method: 'POST', url: '/put', headers: { cookie } })
  cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/regenerate', headers: { cookie } }))!}`
  t.same((await app.inject({ url: '/at', headers: { cookie } })).json(), { at: signedIn, signedInAt: signedIn }, 'unchanged by writes and a new id')
  t.equal((await app.inject({ url: '/recent', headers: { cookie } })).statusCode, 200, 'signed in 300 s ago: fresh')

  clock.advance(300_001)
  const stale = await app.inject({ url: '/recent', headers: { cookie } })
  t.equal(stale.statusCode, 401, 'signed in 600 s and 1 ms ago: stale')
  t.equal(stale.json().code, 'GATEHOUSE_CORE_REAUTHENTICATE')
  t.match(stale.headers['www-authenticate'], /error="insufficient_user_authentication", .*max_age="600"$/)

  const again = clock.now()
  cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' }, headers: { cookie } }))!}`
  t.same((await app.inject({ url: '/at', headers: { cookie } })).json(), { at: again, signedInAt: again }, 'signing in again starts over')
  t.equal((await app.inject({ url: '/recent', headers: { cookie } })).statusCode, 200)
})

// D-OIDC-12: a sign-in may have happened before the session (an OIDC
// provider's auth_time), or at an unknown time.
test('login with authenticatedAt: the avatar and fresh count from it; signedInAt and the lifetime from the session\'s start', async (t) => {
  const clock = fakeDateNow(t)
  const app = await build()
  t.teardown(() => app.close())
  const start = clock.now()
  const earlier = start - 500_000
  let cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice', authenticatedAt: earlier } }))!}`
  t.same((await app.inject({ url: '/at', headers: { cookie } })).json(), { at: earlier, signedInAt: start }, 'the session began at login')
  await app.inject({ method: 'POST', url: '/put', headers: { cookie } })
  t.same((await app.inject({ url: '/at', headers: { cookie } })).json(), { at: earlier, signedInAt: start }, 'kept by writes')
  t.equal((await app.inject({ url: '/recent', headers: { cookie } })).statusCode, 200, '500 s ago: fresh')
  clock.advance(100_001)
  t.equal((await app.inject({ url: '/recent', headers: { cookie } })).statusCode, 401, '600 s and 1 ms after the sign-in, though the session is 100 s old')

  const again = clock.now()
  cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice', authenticatedAt: null } }))!}`
  t.same((await app.inject({ url: '/at', headers: { cookie } })).json(), { at: null, signedInAt: again }, 'unknown: no avatar time')
  t.equal((await app.inject({ url: '/recent', headers: { cookie } })).statusCode, 401, 'an unknown sign-in time is never fresh')

  const future = clock.now() + 60_000
  cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice', authenticatedAt: future } }))!}`
  t.same((await app.inject({ url: '/at', headers: { cookie } })).json(), { at: clock.now(), signedInAt: clock.now() }, 'a time after now counts as now')
})

test('login refuses an authenticatedAt that is not a finite number', async (t) => {
  const session = new Session({ idleTtl: 1000, absoluteTtl: 2000, touchInterval: 0 }, Date.now())
  for (const bad of ['1', Number.NaN, Infinity, {}]) {
    t.throws(() => session.login('alice', [], { authenticatedAt: bad as never }), { code: 'GATEHOUSE_SESSION_INVALID_LOGIN', message: 'session.login: options.authenticatedAt must be a finite number of ms since the epoch, or null' })
  }
})

test('shared stores keep authenticatedAt in the record JSON only when set', async (t) => {
  const base: SessionRecord = { identity: 'alice', tags: [], data: {}, createdAt: 2_000, expiresAt: 9_000, version: 3, via: 'oidc:corp', stamp: null }
  t.notOk('authenticatedAt' in JSON.parse(storedRecordJson(base)), 'absent: at createdAt')
  t.same(recordFromStored(JSON.parse(storedRecordJson(base)), 9_000, 3), base)
  for (const authenticatedAt of [1_000, null]) {
    const record = { ...base, authenticatedAt }
    t.equal(JSON.parse(storedRecordJson(record)).authenticatedAt, authenticatedAt)
    t.same(recordFromStored(JSON.parse(storedRecordJson(record)), 9_000, 3), record)
  }
  t.same(recordFromStored({ ...JSON.parse(storedRecordJson(base)), authenticatedAt: 'x' }, 9_000, 3), { ...base, authenticatedAt: null }, 'a malformed value reads as unknown: never fresh')
})
