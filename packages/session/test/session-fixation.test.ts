import { test } from 'tap'
import { build, CountingStore, sessionCookie } from './helpers/build.js'

test('login regenerates the session id: the pre-login id is dead', async (t) => {
  const store = new CountingStore()
  const app = await build({ store })
  t.teardown(() => app.close())
  // An attacker plants a session (e.g. by starting one and fixing its cookie in the victim's browser).
  const planted = await app.inject({ method: 'POST', url: '/put', payload: { value: 'attacker data' } })
  const fixed = sessionCookie(planted)!
  t.match(fixed, /^[A-Za-z0-9_-]{43}$/)
  // The victim logs in carrying the planted cookie.
  const login = await app.inject({ method: 'POST', url: '/login', payload: { identity: 'victim', tags: 'member' }, headers: { cookie: `session_id=${fixed}` } })
  const fresh = sessionCookie(login)
  t.ok(fresh !== undefined && fresh !== fixed, 'a new id is issued at login')
  const attacker = await app.inject({ url: '/whoami', headers: { cookie: `session_id=${fixed}` } })
  t.same(attacker.json(), { auth: null }, 'the planted id does not carry the victim\'s login')
  const gone = await app.inject({ url: '/get', headers: { cookie: `session_id=${fixed}` } })
  t.same(gone.json(), { value: null, exists: false }, 'the planted session no longer exists')
  const victim = await app.inject({ url: '/get', headers: { cookie: `session_id=${fresh!}` } })
  t.same(victim.json(), { value: null, exists: true }, 'login starts from empty data: nothing planted survives')
})
