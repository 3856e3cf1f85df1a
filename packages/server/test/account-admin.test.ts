// The admin's session endpoints, and what ending a user does not touch (API keys).
// D-SERVER-28, D-AUTH-38.
import { test, type Test } from 'tap'
import { sessionKey } from '@fastify-gatehouse/session'
import { accountServer, ADMIN_PASSWORD, ALICE_KEY, cookieFrom, handleOf, injectSignIn, NEW_PASSWORD } from './helpers/account.js'

type Server = Awaited<ReturnType<typeof accountServer>>
const whoami = async (server: Server, headers: Record<string, string>) => (await server.inject({ url: '/whoami', headers })).json().auth

async function setup (t: Test) {
  const server = await accountServer()
  t.teardown(() => server.close())
  const admin = await injectSignIn(server, 'admin', ADMIN_PASSWORD)
  const as = (method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, cookie = admin, payload?: object) =>
    server.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload }) })
  return { server, admin, as }
}

test('GET /users/:identity/sessions: the user\'s sessions (no `current`), no-store; SUPERADMIN only', async (t) => {
  const { server, as } = await setup(t)
  const alice = [await injectSignIn(server, 'alice', 'alice-pass'), await injectSignIn(server, 'alice', 'alice-pass')]
  const res = await as('GET', '/_server/users/alice/sessions')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store')
  const { sessions } = res.json()
  t.equal(sessions.length, 2)
  for (const item of sessions) t.same(Object.keys(item), ['handle', 'signed_in_at', 'last_seen_at', 'expires_at', 'address', 'agent', 'via'])
  t.same(sessions.map((s: { handle: string }) => s.handle).sort(), [await handleOf(server, alice[0]!), await handleOf(server, alice[1]!)].sort())
  for (const cookie of alice) {
    const id = cookie.slice('session_id='.length)
    t.notOk(res.body.includes(id) || res.body.includes(sessionKey(id)), 'never an id or a key')
  }
  t.same((await as('GET', '/_server/users/nobody/sessions')).json(), { sessions: [] }, 'an identity without sessions lists none')
  const forbidden = await as('GET', '/_server/users/alice/sessions', alice[0])
  t.equal(forbidden.statusCode, 403, 'alice is not SUPERADMIN')
  t.equal(forbidden.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
  t.equal((await server.inject('/_server/users/alice/sessions')).statusCode, 403, 'anonymous')
  t.equal((await as('GET', `/_server/users/${'a'.repeat(201)}/sessions`)).statusCode, 414, 'an identity too long for a path parameter')
})

test('DELETE /users/:identity/sessions/:handle ends one; POST /users/:identity/signout ends all', async (t) => {
  const { server, admin, as } = await setup(t)
  const alice = await Promise.all([1, 2, 3].map(async () => await injectSignIn(server, 'alice', 'alice-pass')))
  const bob = await injectSignIn(server, 'bob', 'bob-pass-1')
  const one = await as('DELETE', `/_server/users/alice/sessions/${await handleOf(server, alice[0]!)}`)
  t.same(one.json(), { status: 'ok' })
  t.equal(one.headers['cache-control'], 'no-store')
  t.equal(await whoami(server, { cookie: alice[0]! }), null)
  t.equal((await whoami(server, { cookie: alice[1]! })).identity, 'alice')
  const again = await as('DELETE', `/_server/users/alice/sessions/${await handleOf(server, alice[1]!)}x`)
  t.equal(again.statusCode, 404)
  t.same(again.json(), { statusCode: 404, code: 'GATEHOUSE_SERVER_NOT_FOUND', error: 'Not Found', message: 'No such session' })
  t.equal((await as('DELETE', `/_server/users/bob/sessions/${await handleOf(server, alice[1]!)}`)).statusCode, 404, 'alice\'s handle under bob')
  const all = await as('POST', '/_server/users/alice/signout')
  t.equal(all.statusCode, 200)
  t.same(all.json(), { status: 'ok', sessions_ended: 2 })
  for (const cookie of alice) t.equal(await whoami(server, { cookie }), null)
  t.equal((await whoami(server, { cookie: bob })).identity, 'bob')
  t.equal((await whoami(server, { cookie: admin })).identity, 'admin')
  t.same((await as('POST', '/_server/users/alice/signout')).json(), { status: 'ok', sessions_ended: 0 })
  t.equal((await as('POST', '/_server/users/alice/signout', admin, { now: true })).json().code, 'GATEHOUSE_SERVER_UNKNOWN_FIELD')
  t.equal((await as('POST', '/_server/users/bob/signout', bob)).statusCode, 403, 'only SUPERADMIN')
  const oidc = cookieFrom((await server.inject({ method: 'POST', url: '/test/oidc-login' })).headers['set-cookie'])!
  t.same((await as('POST', '/_server/users/carol/signout')).json(), { status: 'ok', sessions_ended: 1 }, 'an identity outside the user store (OIDC) too')
  t.equal(await whoami(server, { cookie: oidc }), null)
})

test('a new password, a disable or a delete by the admin ends the user\'s sessions in the store at once; API keys labelled with their identity are left alone', async (t) => {
  const { server, as } = await setup(t)
  const store = server.fastify.sessionStore
  // Read before any request of alice's: the per-request password check cannot have ended them (D-SESSION-10).
  const stored = async (identity = 'alice') => (await store.listFor(identity, 100)).length
  const signIns = async (password: string) => [await injectSignIn(server, 'alice', password), await injectSignIn(server, 'alice', password)]
  const bearer = { authorization: `Bearer ${ALICE_KEY}` }
  const bob = await injectSignIn(server, 'bob', 'bob-pass-1')

  let cookies = await signIns('alice-pass')
  t.equal(await stored(), 2, 'two sessions stored')
  t.equal((await as('PATCH', '/_server/users/alice', undefined, { password: NEW_PASSWORD })).statusCode, 200)
  t.equal(await stored(), 0, 'a new password set by the admin: no session left in the store')
  for (const cookie of cookies) t.equal(await whoami(server, { cookie }), null, 'new password: the session ended')

  cookies = await signIns(NEW_PASSWORD)
  t.equal(await stored(), 2)
  t.equal((await as('PATCH', '/_server/users/alice', undefined, { enabled: false })).statusCode, 200)
  t.equal(await stored(), 0, 'disabled: no session left in the store')
  for (const cookie of cookies) t.equal(await whoami(server, { cookie }), null, 'disabled: the session ended')
  t.match(await whoami(server, bearer), { identity: 'alice', backend: 'api_key' }, 'the key labelled alice still works')

  t.equal((await as('PATCH', '/_server/users/alice', undefined, { enabled: true })).statusCode, 200)
  cookies = await signIns(NEW_PASSWORD)
  t.equal(await stored(), 2)
  t.equal((await as('DELETE', '/_server/users/alice')).statusCode, 200)
  t.equal(await stored(), 0, 'deleted: no session left in the store')
  for (const cookie of cookies) t.equal(await whoami(server, { cookie }), null, 'deleted: the session ended')
  t.equal(await stored('bob'), 1, 'another user\'s session is left alone')
  t.equal((await whoami(server, { cookie: bob })).identity, 'bob')

  t.match(await whoami(server, bearer), { identity: 'alice', backend: 'api_key' }, 'deleted: the key is a separate principal and still works')
  t.match((await as('GET', '/_server/tokens')).json().tokens, [{ label: 'alice', enabled: true }], 'and is still listed, enabled')
  const me = await server.inject({ url: '/_server/account/me', headers: bearer })
  t.match(me.json(), { identity: 'alice', backend: 'api_key', session: null })
  t.equal((await server.inject({ method: 'POST', url: '/_server/account/sessions/revoke-others', headers: bearer })).statusCode, 403, 'but it is no user: no session endpoints')
})
