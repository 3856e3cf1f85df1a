// POST /_server/account/password: who may, what is checked, what it ends.
// D-SERVER-23 to D-SERVER-26, D-SESSION-23.
import { test } from 'tap'
import { accountServer, cookieFrom, injectSignIn, NEW_PASSWORD, NOT_USERS } from './helpers/account.js'
import { fakeDateNow } from '../../../test-helpers/clock.js'

const change = (server: Awaited<ReturnType<typeof accountServer>>, headers: Record<string, string>, payload?: Record<string, unknown>) =>
  server.inject({ method: 'POST', url: '/_server/account/password', headers, ...(payload === undefined ? {} : { payload }) })
const form = (server: Awaited<ReturnType<typeof accountServer>>, cookie: string, fields: Record<string, string>) =>
  server.inject({
    method: 'POST',
    url: '/_server/account/password',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: new URLSearchParams(fields).toString()
  })

test('a password user: 200 { status, sessions_ended }; every other session ends; the caller is signed in again under a new id', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const mine = await injectSignIn(server, 'alice', 'alice-pass')
  const others = [await injectSignIn(server, 'alice', 'alice-pass'), await injectSignIn(server, 'alice', 'alice-pass')]
  const bob = await injectSignIn(server, 'bob', 'bob-pass-1')
  const res = await change(server, { cookie: mine }, { current_password: 'alice-pass', new_password: NEW_PASSWORD })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok', sessions_ended: 2 })
  t.equal(res.headers['cache-control'], 'no-store')
  const renewed = cookieFrom(res.headers['set-cookie'])
  t.ok(renewed !== undefined && renewed !== mine, 'a new session id (ASVS 7.2.4)')
  const whoami = async (cookie: string) => (await server.inject({ url: '/whoami', headers: { cookie } })).json().auth?.identity ?? null
  t.equal(await whoami(renewed!), 'alice', 'the new cookie is signed in')
  t.equal(await whoami(mine), null, 'the old id opens nothing')
  for (const other of others) t.equal(await whoami(other), null, 'another session of alice ended')
  t.equal(await whoami(bob), 'bob', 'bob is untouched')
  const me = (await server.inject({ url: '/_server/account/me', headers: { cookie: renewed! } })).json()
  t.equal(me.session.signed_in_at, me.session.created_at)
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })).statusCode, 401, 'the old password no longer signs in')
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: NEW_PASSWORD } })).statusCode, 200, 'the new one does')
  const listed = (await server.inject({ url: '/_server/account/sessions', headers: { cookie: renewed! } })).json().sessions
  t.equal(listed.length, 2, 'the renewed session and the sign-in just made')
})

test('who may not: anonymous 401; API keys, tokens, JWTs, Basic and OIDC sessions 403 GATEHOUSE_SERVER_ACCOUNT_NOT_USER', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const body = { current_password: 'alice-pass', new_password: NEW_PASSWORD }
  const anonymous = await change(server, {}, body)
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.json().code, 'GATEHOUSE_SERVER_NOT_SIGNED_IN')
  for (const [what, authorization] of NOT_USERS) {
    const res = await change(server, { authorization }, body)
    t.equal(res.statusCode, 403, what)
    t.same(res.json(), { statusCode: 403, code: 'GATEHOUSE_SERVER_ACCOUNT_NOT_USER', error: 'Forbidden', message: 'Only a user signed in with a session can do this; API keys, tokens and Basic credentials may only read /account/me' }, what)
    t.equal(res.headers['cache-control'], 'no-store')
  }
  const oidc = cookieFrom((await server.inject({ method: 'POST', url: '/test/oidc-login' })).headers['set-cookie'])!
  const res = await change(server, { cookie: oidc }, body)
  t.equal(res.statusCode, 403, 'an OIDC session has no password here')
  t.match(res.json(), { code: 'GATEHOUSE_SERVER_ACCOUNT_NOT_USER', message: 'Only a user who signs in here with a password can change it' })
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })).statusCode, 200, 'nothing changed')
})

test('the body: strict, both fields required, the confirmation must match, the policy names the rule', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const cases: Array<[unknown, number, string, RegExp]> = [
    [undefined, 400, 'GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE', /^current_password and new_password are required$/],
    [{ current_password: 'alice-pass' }, 400, 'GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE', /required/],
    [{ current_password: '', new_password: NEW_PASSWORD }, 400, 'GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE', /required/],
    [{ current_password: 'alice-pass', new_password: 12345678 }, 400, 'GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE', /required/],
    [{ current_password: 'alice-pass', new_password: NEW_PASSWORD, new_password_confirm: 'something-else-1' }, 400, 'GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE', /^new_password_confirm differs from new_password$/],
    [{ current_password: 'alice-pass', new_password: NEW_PASSWORD, password: 'x' }, 400, 'GATEHOUSE_SERVER_UNKNOWN_FIELD', /unknown field "password" in body/],
    [{ current_password: 'alice-pass', new_password: 'short' }, 400, 'GATEHOUSE_SERVER_WEAK_PASSWORD', /at least 8 characters.* \(rule: min-length\)$/],
    [{ current_password: 'alice-pass', new_password: 'password123' }, 400, 'GATEHOUSE_SERVER_WEAK_PASSWORD', /\(rule: common\)$/],
    [{ current_password: 'alice-pass', new_password: 'my-alice-rocks-99' }, 400, 'GATEHOUSE_SERVER_WEAK_PASSWORD', /\(rule: contains-identity\)$/],
    [{ current_password: 'alice-pass', new_password: 'x'.repeat(257) }, 400, 'GATEHOUSE_SERVER_WEAK_PASSWORD', /\(rule: max-length\)$/]
  ]
  for (const [payload, status, code, message] of cases) {
    const res = await server.inject({ method: 'POST', url: '/_server/account/password', headers: { cookie }, ...(payload === undefined ? {} : { payload: payload as object }) })
    t.equal(res.statusCode, status, JSON.stringify(payload)?.slice(0, 80))
    t.match(res.json(), { code, message })
    t.notOk(res.body.includes('password123') || res.body.includes('my-alice-rocks'), 'the password is never echoed')
  }
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })).statusCode, 200, 'a refused choice changes nothing and costs no attempt')
})

test('the current password goes through the login lockout: 403 wrong, then 429 with Retry-After, sign-ins locked too', async (t) => {
  const server = await accountServer({ maxAttempts: 3 })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  for (let i = 0; i < 3; i++) {
    const res = await change(server, { cookie }, { current_password: 'not-it-at-all', new_password: NEW_PASSWORD })
    t.equal(res.statusCode, 403)
    t.same(res.json(), { statusCode: 403, code: 'GATEHOUSE_SERVER_WRONG_PASSWORD', error: 'Forbidden', message: 'The current password is wrong' })
  }
  const locked = await change(server, { cookie }, { current_password: 'alice-pass', new_password: NEW_PASSWORD })
  t.equal(locked.statusCode, 429, 'locked, even with the right password')
  t.equal(locked.json().code, 'GATEHOUSE_SERVER_LOCKED')
  const retry = Number(locked.headers['retry-after'])
  t.ok(retry > 0 && retry <= 30, `Retry-After ${retry}`)
  const login = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })
  t.equal(login.statusCode, 429, 'one counter: sign-ins of alice are locked too')
  t.equal((await server.inject({ url: '/whoami', headers: { cookie } })).json().auth.identity, 'alice', 'the session itself stays')
})

test('freshness: a sign-in older than freshFor gets 401 GATEHOUSE_CORE_REAUTHENTICATE (RFC 9470), a new sign-in passes', async (t) => {
  const clock = fakeDateNow(t)
  const server = await accountServer({ account: { freshFor: 60 } })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  clock.advance(61_000)
  const res = await change(server, { cookie }, { current_password: 'alice-pass', new_password: NEW_PASSWORD })
  t.equal(res.statusCode, 401)
  t.match(res.json(), { code: 'GATEHOUSE_CORE_REAUTHENTICATE' })
  t.match(res.headers['www-authenticate'], /error="insufficient_user_authentication"/)
  t.match(res.headers['www-authenticate'], /max_age="60"/)
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: NEW_PASSWORD } })).statusCode, 401, 'nothing changed')
  const stale = await form(server, cookie, { current_password: 'alice-pass', new_password: NEW_PASSWORD })
  t.equal(stale.statusCode, 303, 'a browser form is sent to sign in again')
  t.match(stale.headers.location, /^\/_server\/login_page\?next=[^&]*&reauth=1$/)
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: NEW_PASSWORD } })).statusCode, 401, 'still nothing changed')
  const again = await injectSignIn(server, 'alice', 'alice-pass')
  t.equal((await change(server, { cookie: again }, { current_password: 'alice-pass', new_password: NEW_PASSWORD })).statusCode, 200, 'a new sign-in is recent enough')
})

test('a browser form (no JavaScript): 303 back to the account page with a fixed code', async (t) => {
  const server = await accountServer({ maxAttempts: 2 })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const cases: Array<[Record<string, string>, string]> = [
    [{ current_password: 'alice-pass' }, '/_server/account?error=missing'],
    [{ current_password: 'alice-pass', new_password: NEW_PASSWORD, new_password_confirm: 'nope-nope-nope' }, '/_server/account?error=mismatch'],
    [{ current_password: 'alice-pass', new_password: 'password123' }, '/_server/account?error=weak&rule=common'],
    [{ current_password: 'wrong-one-1', new_password: NEW_PASSWORD }, '/_server/account?error=wrong-password'],
    [{ current_password: 'wrong-one-2', new_password: NEW_PASSWORD }, '/_server/account?error=wrong-password']
  ]
  for (const [fields, location] of cases) {
    const res = await form(server, cookie, fields)
    t.equal(res.statusCode, 303)
    t.equal(res.headers.location, location)
  }
  const locked = await form(server, cookie, { current_password: 'alice-pass', new_password: NEW_PASSWORD })
  t.match(locked.headers.location, /^\/_server\/account\?error=locked&retry=\d+$/)

  const other = await accountServer()
  t.teardown(() => other.close())
  const bob = await injectSignIn(other, 'bob', 'bob-pass-1')
  const done = await form(other, bob, { current_password: 'bob-pass-1', new_password: NEW_PASSWORD, new_password_confirm: NEW_PASSWORD })
  t.equal(done.statusCode, 303)
  t.equal(done.headers.location, '/_server/account?done=password-changed&ended=0')
  t.ok(cookieFrom(done.headers['set-cookie']), 'the new session cookie')
  const anonymous = await other.inject({ method: 'POST', url: '/_server/account/password', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, payload: 'current_password=a&new_password=b' })
  t.equal(anonymous.statusCode, 303, 'an anonymous form goes to sign in')
  t.match(anonymous.headers.location, /^\/_server\/login_page\?next=/)
})

test('a user disabled between the check and the change: 409 GATEHOUSE_SERVER_PASSWORD_CONFLICT, signed out', async (t) => {
  const { accountUsers } = await import('./helpers/account.js')
  const users = await accountUsers()
  // The store answers the lockout's verify, then the user is disabled before the new password is proven.
  const setPassword = users.setPassword.bind(users)
  users.setPassword = async (identity, password) => {
    const done = await setPassword(identity, password)
    await users.setEnabled(identity, false)
    return done
  }
  const server = await accountServer({ users })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const res = await change(server, { cookie }, { current_password: 'alice-pass', new_password: NEW_PASSWORD })
  t.equal(res.statusCode, 409)
  t.match(res.json(), { code: 'GATEHOUSE_SERVER_PASSWORD_CONFLICT' })
  t.match(String(res.headers['set-cookie']), /session_id=;.*Max-Age=0/i, 'the cookie is cleared')
})

test('a new password equal to the current one is refused (400 GATEHOUSE_SERVER_SAME_PASSWORD), compared as hashed (NFC); nothing changes, no attempt is counted', async (t) => {
  const server = await accountServer({ maxAttempts: 1 })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const other = await injectSignIn(server, 'alice', 'alice-pass')
  const same = await change(server, { cookie }, { current_password: 'alice-pass', new_password: 'alice-pass' })
  t.equal(same.statusCode, 400)
  t.same(same.json(), { statusCode: 400, code: 'GATEHOUSE_SERVER_SAME_PASSWORD', error: 'Bad Request', message: 'new_password is the current password; choose another' })
  // A decomposed é is the same password once normalised, as it is hashed (D-PASSWORD-09); and a wrong
  // current password equal to the new one is refused the same way, before the lockout sees it.
  const decomposed = await change(server, { cookie }, { current_password: 'caf\u00e9-lilac-2931', new_password: 'cafe\u0301-lilac-2931' })
  t.same([decomposed.statusCode, decomposed.json().code], [400, 'GATEHOUSE_SERVER_SAME_PASSWORD'], 'NFC-equal')
  const page = await form(server, cookie, { current_password: 'alice-pass', new_password: 'alice-pass', new_password_confirm: 'alice-pass' })
  t.equal(page.statusCode, 303)
  t.equal(page.headers.location, '/_server/account?error=same-password', 'a form goes back to the page with the code')
  const shown = await server.inject({ url: page.headers.location as string, headers: { cookie, accept: 'text/html' } })
  t.match(shown.body, 'The new password is your current one; choose another.')
  t.equal((await server.inject({ url: '/whoami', headers: { cookie: other } })).json().auth?.identity, 'alice', 'no session ended')
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })).statusCode, 200, 'the password is unchanged and, with maxAttempts 1, no attempt was counted')
})
