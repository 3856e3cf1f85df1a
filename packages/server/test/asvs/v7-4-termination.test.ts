// OWASP ASVS 5.0, V7.4 Session Termination: one test per requirement.
// V7.4.4 ("all pages that require authentication have easy and visible access
// to logout functionality") is about pages: it is the account page's, asserted
// by its browser tests; the JSON side is the sign-out endpoints of V7.4.1.
import { test } from 'tap'
import { MemorySessionStore, sessionKey } from '@fastify-gatehouse/session'
import { accountServer, ADMIN_PASSWORD, handleOf, injectSignIn, NEW_PASSWORD } from '../helpers/account.js'
import { fakeDateNow } from '../../../../test-helpers/clock.js'

type Server = Awaited<ReturnType<typeof accountServer>>
const whoami = async (server: Server, cookie: string) => (await server.inject({ url: '/whoami', headers: { cookie } })).json().auth?.identity ?? null
const keyOf = (cookie: string) => sessionKey(cookie.slice('session_id='.length))

test('ASVS 5.0 V7.4.1: a session ended by sign-out or expiry is gone from the store; its token opens nothing, replayed or not', async (t) => {
  const clock = fakeDateNow(t)
  const sessionStore = new MemorySessionStore()
  const server = await accountServer({ sessionStore, idleTtl: 600 })
  t.teardown(() => server.close())
  for (const url of ['/_server/logout', '/_server/account/logout']) {
    const cookie = await injectSignIn(server, 'alice', 'alice-pass')
    const out = await server.inject({ method: 'POST', url, headers: { cookie } })
    t.same(out.json(), { status: 'ok' }, url)
    t.match(String(out.headers['set-cookie']), /^session_id=; Max-Age=0;/, `${url}: the cookie is cleared`)
    t.equal(sessionStore.get(keyOf(cookie)), null, `${url}: the record is gone from the backend`)
    t.equal(await whoami(server, cookie), null, `${url}: the token replayed opens nothing`)
    t.equal((await server.inject({ url: '/_server/account/me', headers: { cookie } })).statusCode, 401)
  }
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  clock.advance(600_001)
  t.equal(await whoami(server, cookie), null, 'expired: anonymous')
  t.equal(sessionStore.get(keyOf(cookie)), null, 'and not kept')
})

test('ASVS 5.0 V7.4.2: disabling or deleting a user terminates all their sessions at once', async (t) => {
  const sessionStore = new MemorySessionStore()
  const server = await accountServer({ sessionStore })
  t.teardown(() => server.close())
  const admin = await injectSignIn(server, 'admin', ADMIN_PASSWORD)
  for (const [what, method, payload] of [['disabled', 'PATCH', { enabled: false }], ['deleted', 'DELETE', undefined]] as const) {
    if (what === 'deleted') await server.inject({ method: 'PATCH', url: '/_server/users/alice', headers: { cookie: admin }, payload: { enabled: true } })
    const cookies = [await injectSignIn(server, 'alice', 'alice-pass'), await injectSignIn(server, 'alice', 'alice-pass')]
    const bob = await injectSignIn(server, 'bob', 'bob-pass-1')
    const res = await server.inject({ method, url: '/_server/users/alice', headers: { cookie: admin }, ...(payload === undefined ? {} : { payload }) })
    t.equal(res.statusCode, 200, what)
    t.same(sessionStore.listFor('alice', 10), [], `${what}: no session of alice is left in the store`)
    for (const cookie of cookies) t.equal(await whoami(server, cookie), null, `${what}: anonymous`)
    t.equal(await whoami(server, bob), 'bob', `${what}: other users keep theirs`)
  }
})

test('ASVS 5.0 V7.4.3: after a password change every other session ends (and any can be ended at will)', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const mine = await injectSignIn(server, 'alice', 'alice-pass')
  const others = [await injectSignIn(server, 'alice', 'alice-pass'), await injectSignIn(server, 'alice', 'alice-pass')]
  const changed = await server.inject({ method: 'POST', url: '/_server/account/password', headers: { cookie: mine }, payload: { current_password: 'alice-pass', new_password: NEW_PASSWORD } })
  t.same(changed.json(), { status: 'ok', sessions_ended: 2 }, 'the answer says how many ended')
  for (const cookie of others) t.equal(await whoami(server, cookie), null, 'another session ended with the change')
  // And the option at any time: every session but this one.
  const renewed = String(changed.headers['set-cookie']).split(';')[0]!
  const later = await injectSignIn(server, 'alice', NEW_PASSWORD)
  t.same((await server.inject({ method: 'POST', url: '/_server/account/sessions/revoke-others', headers: { cookie: renewed } })).json(), { status: 'ok', sessions_ended: 1 })
  t.equal(await whoami(server, later), null)
  t.equal(await whoami(server, renewed), 'alice')
})

test('ASVS 5.0 V7.4.5: an administrator can end one session of a user, or all of them', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const admin = await injectSignIn(server, 'admin', ADMIN_PASSWORD)
  const cookies = await Promise.all([1, 2, 3].map(async () => await injectSignIn(server, 'alice', 'alice-pass')))
  const listed = (await server.inject({ url: '/_server/users/alice/sessions', headers: { cookie: admin } })).json().sessions
  t.equal(listed.length, 3, 'the admin sees the user\'s sessions')
  const one = await server.inject({ method: 'DELETE', url: `/_server/users/alice/sessions/${await handleOf(server, cookies[0]!)}`, headers: { cookie: admin } })
  t.same(one.json(), { status: 'ok' })
  t.equal(await whoami(server, cookies[0]!), null, 'one ended')
  t.equal(await whoami(server, cookies[1]!), 'alice', 'the others not')
  const all = await server.inject({ method: 'POST', url: '/_server/users/alice/signout', headers: { cookie: admin } })
  t.same(all.json(), { status: 'ok', sessions_ended: 2 })
  for (const cookie of cookies) t.equal(await whoami(server, cookie), null, 'all ended')
  t.equal((await server.inject({ method: 'POST', url: '/_server/users/alice/signout', headers: { cookie: cookies[0]! } })).statusCode, 403, 'administrators only')
})
