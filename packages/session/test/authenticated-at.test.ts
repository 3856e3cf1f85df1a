// A session caller proved who they are when they signed in: the session
// avatar's authenticatedAt is its record's createdAt (signing in starts a new
// record), and a route's `fresh` counts from there.
import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { components, sessionCookie } from './helpers/build.js'
import { fakeDateNow } from '../../../test-helpers/clock.js'

async function build () {
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: {} } }, { components })
  app.post<{ Body: { identity: string } }>('/login', async (req) => {
    req.scope.session!.login(req.body.identity, 'member')
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
