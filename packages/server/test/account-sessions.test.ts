// The caller's own sessions: list, revoke one, revoke the others, sign out.
// D-SESSION-24, D-SESSION-25, D-SERVER-27.
import { test } from 'tap'
import { sessionKey } from '@fastify-gatehouse/session'
import { accountServer, cookieFrom, handleOf, injectSignIn, NOT_USERS } from './helpers/account.js'
import { fakeDateNow } from '../../../test-helpers/clock.js'

type Server = Awaited<ReturnType<typeof accountServer>>
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const whoami = async (server: Server, cookie: string) => (await server.inject({ url: '/whoami', headers: { cookie } })).json().auth?.identity ?? null
const list = async (server: Server, cookie: string) => await server.inject({ url: '/_server/account/sessions', headers: { cookie } })

test('GET /account/sessions: newest first, the current one marked, client and times; never an id or a key; no-store', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const first = await injectSignIn(server, 'alice', 'alice-pass', FIREFOX)
  const second = await injectSignIn(server, 'alice', 'alice-pass', 'curl/8.5.0')
  const mine = await injectSignIn(server, 'alice', 'alice-pass', FIREFOX)
  await injectSignIn(server, 'bob', 'bob-pass-1')
  const res = await list(server, mine)
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store')
  const { sessions } = res.json()
  t.equal(sessions.length, 3, 'alice\'s three, not bob\'s')
  for (const item of sessions) {
    t.same(Object.keys(item), ['handle', 'current', 'signed_in_at', 'last_seen_at', 'expires_at', 'address', 'agent', 'via'])
    t.match(item, { handle: /^[A-Za-z0-9_-]{22}$/, address: '127.0.0.1', via: 'password' })
    t.ok(Date.parse(item.expires_at) > Date.parse(item.last_seen_at), 'expires after it was last seen')
    t.ok(Date.parse(item.last_seen_at) >= Date.parse(item.signed_in_at))
  }
  t.same(sessions.map((s: { current: boolean }) => s.current), [true, false, false], 'newest first: the current one was signed in last')
  t.equal(sessions[0].handle, await handleOf(server, mine))
  t.equal(sessions[1].handle, await handleOf(server, second))
  t.equal(sessions[2].handle, await handleOf(server, first))
  t.same(sessions.map((s: { agent: string }) => s.agent), ['Firefox 133 on Linux', 'curl 8', 'Firefox 133 on Linux'])
  t.ok(Date.parse(sessions[1].signed_in_at) >= Date.parse(sessions[2].signed_in_at))
  for (const cookie of [first, second, mine]) {
    const id = cookie.slice('session_id='.length)
    t.notOk(res.body.includes(id) || res.body.includes(sessionKey(id)), 'no session id or store key in the list')
  }
})

test('who may list: anonymous 401, non-users 403; an OIDC session lists its own', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  t.equal((await server.inject('/_server/account/sessions')).json().code, 'GATEHOUSE_SERVER_NOT_SIGNED_IN')
  for (const [what, authorization] of NOT_USERS) {
    const res = await server.inject({ url: '/_server/account/sessions', headers: { authorization } })
    t.equal(res.statusCode, 403, what)
    t.equal(res.json().code, 'GATEHOUSE_SERVER_ACCOUNT_NOT_USER')
    t.equal(res.headers['cache-control'], 'no-store')
  }
  const oidc = cookieFrom((await server.inject({ method: 'POST', url: '/test/oidc-login' })).headers['set-cookie'])!
  const res = await list(server, oidc)
  t.equal(res.statusCode, 200)
  t.match(res.json().sessions, [{ current: true, via: 'oidc:test' }])
})

test('DELETE /account/sessions/:handle ends that session only; unknown, malformed or another user\'s handle 404', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const mine = await injectSignIn(server, 'alice', 'alice-pass')
  const other = await injectSignIn(server, 'alice', 'alice-pass')
  const bob = await injectSignIn(server, 'bob', 'bob-pass-1')
  const target = await handleOf(server, other)
  const res = await server.inject({ method: 'DELETE', url: `/_server/account/sessions/${target}`, headers: { cookie: mine } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok' })
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(await whoami(server, other), null, 'the revoked session is anonymous')
  t.equal(await whoami(server, mine), 'alice', 'the caller\'s stays')
  t.equal((await list(server, mine)).json().sessions.length, 1, 'one left in the list')
  for (const [what, handle] of [['already revoked', target], ['bob\'s', await handleOf(server, bob)], ['malformed', 'not-a-handle'], ['too long', 'a'.repeat(65)]] as const) {
    const gone = await server.inject({ method: 'DELETE', url: `/_server/account/sessions/${handle}`, headers: { cookie: mine } })
    t.equal(gone.statusCode, handle.length > 64 ? 400 : 404, what)
    if (handle.length <= 64) t.same(gone.json(), { statusCode: 404, code: 'GATEHOUSE_SERVER_NOT_FOUND', error: 'Not Found', message: 'No such session' })
  }
  t.equal(await whoami(server, bob), 'bob', 'bob\'s session was not touched')
  const body = await server.inject({ method: 'DELETE', url: `/_server/account/sessions/${target}`, headers: { cookie: mine }, payload: { all: true } })
  t.equal(body.json().code, 'GATEHOUSE_SERVER_UNKNOWN_FIELD', 'no body fields')
})

test('revoking the current session is signing out: cookie cleared, anonymous after', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const mine = await injectSignIn(server, 'alice', 'alice-pass')
  const res = await server.inject({ method: 'DELETE', url: `/_server/account/sessions/${await handleOf(server, mine)}`, headers: { cookie: mine } })
  t.same(res.json(), { status: 'ok' })
  t.match(String(res.headers['set-cookie']), /^session_id=; Max-Age=0;/)
  t.equal(await whoami(server, mine), null)
})

test('the form: POST /account/sessions/:handle/revoke → 303 with a fixed code; the current one → the login page', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const mine = await injectSignIn(server, 'alice', 'alice-pass')
  const other = await injectSignIn(server, 'alice', 'alice-pass')
  const post = (handle: string) => server.inject({ method: 'POST', url: `/_server/account/sessions/${handle}/revoke`, headers: { cookie: mine, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, payload: '' })
  const target = await handleOf(server, other)
  const done = await post(target)
  t.equal(done.statusCode, 303)
  t.equal(done.headers.location, '/_server/account?done=session-revoked')
  t.equal(await whoami(server, other), null)
  const again = await post(target)
  t.equal(again.headers.location, '/_server/account?error=not-found')
  const out = await post(await handleOf(server, mine))
  t.equal(out.statusCode, 303)
  t.equal(out.headers.location, '/_server/login_page')
  t.equal(await whoami(server, mine), null)
  const json = await server.inject({ method: 'POST', url: `/_server/account/sessions/${target}/revoke`, headers: { cookie: await injectSignIn(server, 'alice', 'alice-pass') } })
  t.equal(json.statusCode, 404, 'the form route answers JSON callers in JSON')
})

test('POST /account/sessions/revoke-others: every other session ends, the caller\'s keeps its id; form 303', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const mine = await injectSignIn(server, 'alice', 'alice-pass')
  const others = await Promise.all([1, 2, 3].map(async () => await injectSignIn(server, 'alice', 'alice-pass')))
  const bob = await injectSignIn(server, 'bob', 'bob-pass-1')
  const res = await server.inject({ method: 'POST', url: '/_server/account/sessions/revoke-others', headers: { cookie: mine } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok', sessions_ended: 3 })
  t.notOk(res.headers['set-cookie'], 'the caller keeps its session and id (its lifetime is not renewed)')
  for (const other of others) t.equal(await whoami(server, other), null)
  t.equal(await whoami(server, mine), 'alice')
  t.equal(await whoami(server, bob), 'bob')
  const none = await server.inject({ method: 'POST', url: '/_server/account/sessions/revoke-others', headers: { cookie: mine, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, payload: '' })
  t.equal(none.statusCode, 303)
  t.equal(none.headers.location, '/_server/account?done=others-revoked&ended=0')
})

test('revoking needs a recent sign-in (listing does not)', async (t) => {
  const clock = fakeDateNow(t)
  const server = await accountServer()
  t.teardown(() => server.close())
  const mine = await injectSignIn(server, 'alice', 'alice-pass')
  const other = await injectSignIn(server, 'alice', 'alice-pass')
  const target = await handleOf(server, other)
  clock.advance(601_000)
  t.equal((await list(server, mine)).statusCode, 200, 'listing is not sensitive')
  for (const [method, url] of [['DELETE', `/_server/account/sessions/${target}`], ['POST', `/_server/account/sessions/${target}/revoke`], ['POST', '/_server/account/sessions/revoke-others']] as const) {
    const res = await server.inject({ method, url, headers: { cookie: mine } })
    t.equal(res.statusCode, 401, `${method} ${url}`)
    t.equal(res.json().code, 'GATEHOUSE_CORE_REAUTHENTICATE')
    t.match(res.headers['www-authenticate'], /max_age="600"/)
  }
  const form = await server.inject({ method: 'POST', url: `/_server/account/sessions/${target}/revoke`, headers: { cookie: mine, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, payload: '' })
  t.equal(form.statusCode, 303, 'a browser form is sent to sign in again')
  t.match(form.headers.location, /&reauth=1$/)
  t.equal(await whoami(server, other), 'alice', 'nothing was revoked')
})

test('POST /account/logout: like POST /logout (JSON 200, form 303 to the login page); anonymous too', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const res = await server.inject({ method: 'POST', url: '/_server/account/logout', headers: { cookie } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok' })
  t.equal(res.headers['cache-control'], 'no-store')
  t.match(String(res.headers['set-cookie']), /^session_id=; Max-Age=0;/)
  t.equal(await whoami(server, cookie), null)
  const browser = await injectSignIn(server, 'alice', 'alice-pass')
  const form = await server.inject({ method: 'POST', url: '/_server/account/logout', headers: { cookie: browser, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, payload: '' })
  t.equal(form.statusCode, 303)
  t.equal(form.headers.location, '/_server/login_page')
  t.equal(await whoami(server, browser), null)
  t.same((await server.inject({ method: 'POST', url: '/_server/account/logout' })).json(), { status: 'ok' }, 'anonymous: nothing to end, still ok')
  t.equal((await server.inject({ method: 'POST', url: '/_server/account/logout', payload: { everywhere: true } })).json().code, 'GATEHOUSE_SERVER_UNKNOWN_FIELD')
})
