import { test } from 'tap'
import { PAGE_HEADERS } from '@fastify-gatehouse/core'
import { fakeDateNow } from '../../../test-helpers/clock.js'
import { basic } from './helpers/credentials.js'
import { accountServer, accountUsers, cookieFrom, handleOf, injectSignIn } from './helpers/account.js'

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36'

const page = async (server: Awaited<ReturnType<typeof accountServer>>, url: string, headers: Record<string, string> = {}) =>
  await server.inject({ url, headers: { accept: BROWSER, ...headers } })

test('anonymous: a browser is sent to sign in and back; an API caller gets 401', async (t) => {
  const server = await accountServer({ login: true })
  t.teardown(() => server.close())
  const res = await page(server, '/_server/account?done=password-changed')
  t.equal(res.statusCode, 302)
  t.equal(res.headers.location, '/_server/login_page?next=%2F_server%2Faccount', 'next is the account page, without the stale message')
  const api = await server.inject('/_server/account')
  t.equal(api.statusCode, 401)
  t.match(api.json(), { code: 'GATEHOUSE_SERVER_NOT_SIGNED_IN' })
  const loginPage = await page(server, res.headers.location as string)
  t.match(loginPage.body, '<input type="hidden" name="next" value="/_server/account">', 'the login page keeps it')
})

test('signed in: who, tags, backend, the password form and the sessions, under the page headers', async (t) => {
  const server = await accountServer({ login: true })
  t.teardown(() => server.close())
  const other = await injectSignIn(server, 'alice', 'alice-pass', CHROME)
  const cookie = await injectSignIn(server, 'alice', 'alice-pass', FIREFOX)
  await injectSignIn(server, 'bob', 'bob-pass-1', FIREFOX)
  const res = await page(server, '/_server/account', { cookie, 'user-agent': FIREFOX })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8')
  for (const [name, value] of Object.entries(PAGE_HEADERS)) t.equal(res.headers[name], value, name)
  t.notOk(res.headers['set-cookie'], 'reading the page writes nothing')
  const html = res.body
  t.match(html, '<title>Your account</title>')
  t.match(html, '<script src="/_server/account.js" defer></script>')
  t.notMatch(html, /<script>|<style|style=|onpaste|onclick/, 'nothing inline, no paste blocking')
  t.match(html, '<header class="signed-in">\n<p>Signed in as <strong>alice</strong></p>\n<form method="post" action="/_server/account/logout">\n<button type="submit">Sign out</button>\n</form>\n</header>')
  t.match(html, '<p id="message" role="status" tabindex="-1"></p>')
  t.match(html, '<dt>Identity</dt><dd>alice</dd>\n<dt>Tags</dt><dd>member</dd>\n<dt>Authenticated by</dt><dd>session</dd>\n<dt>Signed in with</dt><dd>password</dd>\n<dt>Signed in at</dt><dd><time datetime="')
  t.match(html, /<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/)
  t.notMatch(html, 'Confirm it', 'just signed in: no need to confirm')

  t.match(html, '<form method="post" action="/_server/account/password">')
  t.match(html, '<input id="current-password" name="current_password" type="password" autocomplete="current-password" required>')
  t.match(html, '<input id="new-password" name="new_password" type="password" autocomplete="new-password" required minlength="8" aria-describedby="new-password-hint">')
  t.match(html, '<input id="new-password-confirm" name="new_password_confirm" type="password" autocomplete="new-password" required>')
  t.notMatch(html, /maxlength/, 'no silent truncation of a pasted password')

  const mine = await handleOf(server, cookie)
  const theirs = await handleOf(server, other)
  t.equal(html.split('<tr aria-current="true">').length, 2, 'one row is this session')
  t.match(html, '<tr aria-current="true">\n<td class="device">Firefox 133 on Linux <strong>(this session)</strong></td>\n<td data-label="Address">127.0.0.1</td>')
  t.match(html, `<form method="post" action="/_server/account/sessions/${mine}/revoke">\n<button type="submit">Sign out<span class="visually-hidden">: Firefox 133 on Linux at 127.0.0.1</span></button>`)
  t.match(html, '<tr>\n<td class="device">Chrome 130 on Windows</td>')
  t.match(html, `<form method="post" action="/_server/account/sessions/${theirs}/revoke">\n<button type="submit">End session<span class="visually-hidden">: Chrome 130 on Windows at 127.0.0.1</span></button>`)
  t.match(html, '<form method="post" action="/_server/account/sessions/revoke-others">\n<button type="submit">Sign out everywhere else</button>')
  t.equal(html.split('/revoke">').length - 1, 2, "bob's session is not listed")
  t.match(html, '<th scope="col">Action</th>')
})

test('a sign-in older than freshFor: "Confirm it\'s you" instead of the forms that need a recent one', async (t) => {
  const clock = fakeDateNow(t)
  const server = await accountServer({ login: true, account: { freshFor: 600 } })
  t.teardown(() => server.close())
  await injectSignIn(server, 'alice', 'alice-pass', CHROME)
  const cookie = await injectSignIn(server, 'alice', 'alice-pass', FIREFOX)
  clock.advance(601_000)
  const html = (await page(server, '/_server/account', { cookie })).body
  t.match(html, '<h2 id="confirm-heading">Confirm it&#39;s you</h2>\n<p>You signed in more than 10 minutes ago. To change your password or end sessions, sign in again.</p>')
  t.match(html, '<a class="button" href="/_server/login_page?next=%2F_server%2Faccount&amp;reauth=1">Confirm it&#39;s you</a>')
  t.notMatch(html, 'action="/_server/account/password"', 'no password form')
  t.notMatch(html, '/revoke', 'no revoke buttons')
  t.notMatch(html, 'Action</th>')
  t.match(html, '<td class="device">Chrome 130 on Windows</td>', 'the sessions are still listed')
  const confirm = await page(server, '/_server/login_page?next=%2F_server%2Faccount&reauth=1', { cookie })
  t.match(confirm.body, '<h1>Confirm it&#39;s you</h1>', 'the link leads to the login page asking again')
  const again = await injectSignIn(server, 'alice', 'alice-pass', FIREFOX)
  t.match((await page(server, '/_server/account', { cookie: again })).body, 'action="/_server/account/password"', 'a new sign-in brings the forms back')
  t.equal((await page(server, '/_server/account', { cookie: again })).body.split('/revoke">').length - 1, 3, 'three sessions, three revoke buttons')
})

test('messages come from fixed codes and digits, never from the URL', async (t) => {
  const server = await accountServer({ login: true })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const message = async (query: string) => (await page(server, `/_server/account?${query}`, { cookie })).body.match(/<p id="message"[^>]*>[^<]*<\/p>/)?.[0]
  t.equal(await message('done=password-changed&ended=2'), '<p id="message" class="done" role="status" tabindex="-1">Your password was changed, and your 2 other sessions ended.</p>')
  t.equal(await message('done=password-changed&ended=0'), '<p id="message" class="done" role="status" tabindex="-1">Your password was changed.</p>')
  t.equal(await message('done=password-changed&ended=%3Cb%3E'), '<p id="message" class="done" role="status" tabindex="-1">Your password was changed.</p>', 'a count that is not digits is not shown')
  t.equal(await message('done=session-revoked'), '<p id="message" class="done" role="status" tabindex="-1">The session was ended.</p>')
  t.equal(await message('done=others-revoked&ended=1'), '<p id="message" class="done" role="status" tabindex="-1">You were signed out everywhere else (1 other session ended).</p>')
  t.equal(await message('error=wrong-password'), '<p id="message" class="error" role="alert" tabindex="-1">The current password is wrong.</p>')
  t.equal(await message('error=mismatch'), '<p id="message" class="error" role="alert" tabindex="-1">The new password and its confirmation differ.</p>')
  t.equal(await message('error=missing'), '<p id="message" class="error" role="alert" tabindex="-1">Enter your current password and a new one.</p>')
  t.equal(await message('error=locked&retry=30'), '<p id="message" class="error" role="alert" tabindex="-1">Too many wrong passwords. Try again in 30 seconds.</p>')
  t.equal(await message('error=locked&retry=soon'), '<p id="message" class="error" role="alert" tabindex="-1">Too many wrong passwords. Try again later.</p>')
  t.equal(await message('error=weak&rule=min-length'), '<p id="message" class="error" role="alert" tabindex="-1">The new password must be at least 8 characters long.</p>')
  t.equal(await message('error=weak&rule=common'), '<p id="message" class="error" role="alert" tabindex="-1">The new password is one of the most common passwords; choose another.</p>')
  t.equal(await message('error=weak&rule=%3Cscript%3E'), '<p id="message" class="error" role="alert" tabindex="-1">The new password was refused by the password policy.</p>')
  t.equal(await message('error=not-found'), '<p id="message" class="error" role="alert" tabindex="-1">That session had already ended.</p>')
  for (const query of ['error=%3Cscript%3Ealert(1)%3C/script%3E', 'done=hello', 'done=a&done=b', 'error=']) {
    t.equal(await message(query), '<p id="message" role="status" tabindex="-1"></p>', `${query}: nothing shown`)
  }
})

test('other callers: an OIDC sign-in has no password here; a header credential has no session', async (t) => {
  const server = await accountServer({ login: true })
  t.teardown(() => server.close())
  const oidc = cookieFrom((await server.inject({ method: 'POST', url: '/test/oidc-login' })).headers['set-cookie'])!
  const carol = (await page(server, '/_server/account', { cookie: oidc })).body
  t.match(carol, '<dt>Signed in with</dt><dd>oidc:test</dd>')
  t.match(carol, '<p>Your password is not kept here: you signed in with oidc:test.</p>')
  t.notMatch(carol, 'account/password')
  t.match(carol, '<td class="device">lightMyRequest <strong>(this session)</strong></td>', 'an agent the label does not know, as sent (printable, cut)')
  const basil = await page(server, '/_server/account', { authorization: basic('basil', 'basil-pass') })
  t.equal(basil.statusCode, 200)
  t.match(basil.body, '<dt>Identity</dt><dd>basil</dd>\n<dt>Tags</dt><dd>member</dd>\n<dt>Authenticated by</dt><dd>basic</dd>\n</dl>')
  t.match(basil.body, 'not with a session: there is nothing here to sign out of, and no sessions to list.')
  t.notMatch(basil.body, /<table|account\/password/)
})

test('identities and labels are escaped', async (t) => {
  const users = await accountUsers()
  await users.add('<i>eve</i>', { password: 'eve-password-1', tags: [] })
  const server = await accountServer({ login: true, users })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, '<i>eve</i>', 'eve-password-1', '<script>alert(1)</script>')
  const html = (await page(server, '/_server/account', { cookie })).body
  t.match(html, 'Signed in as <strong>&lt;i&gt;eve&lt;/i&gt;</strong>')
  t.match(html, '<dt>Identity</dt><dd>&lt;i&gt;eve&lt;/i&gt;</dd>')
  t.match(html, '<dt>Tags</dt><dd>none</dd>')
  t.notMatch(html, /<i>|<script>alert/)
})

test('POST /account/logout: a form goes to the login page, with the next it gives (switch account)', async (t) => {
  const server = await accountServer({ login: true })
  t.teardown(() => server.close())
  const form = async (cookie: string, fields: Record<string, string>) => await server.inject({
    method: 'POST',
    url: '/_server/account/logout',
    headers: { cookie, accept: BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString()
  })
  const plain = await form(await injectSignIn(server, 'alice', 'alice-pass'), {})
  t.equal(plain.statusCode, 303)
  t.equal(plain.headers.location, '/_server/login_page')
  t.match(String(plain.headers['set-cookie']), /session_id=;.*Max-Age=0/i, 'the cookie is cleared')
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const switched = await form(cookie, { next: '/whoami?x=1' })
  t.equal(switched.headers.location, '/_server/login_page?next=%2Fwhoami%3Fx%3D1')
  t.same((await server.inject({ url: '/whoami', headers: { cookie } })).json(), { auth: null }, 'signed out')
  t.equal((await form(await injectSignIn(server, 'alice', 'alice-pass'), { next: '//evil.example' })).headers.location, '/_server/login_page?next=%2F')
  const unknown = await form(await injectSignIn(server, 'alice', 'alice-pass'), { next: '/', extra: '1' })
  t.equal(unknown.statusCode, 400)
  t.equal(unknown.body, '400 Bad Request: unknown field "extra" in body', 'GATEHOUSE_SERVER_UNKNOWN_FIELD, as text for a browser')
})

test('account: false: no account page, but every page\'s sign-out form still works', async (t) => {
  const server = await accountServer({ login: true, account: false })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  t.equal((await page(server, '/_server/account', { cookie })).statusCode, 404)
  const logoutPage = (await page(server, '/_server/logout', { cookie })).body
  t.match(logoutPage, 'action="/_server/account/logout"')
  t.notMatch(logoutPage, 'Back to your account')
  const out = await server.inject({ method: 'POST', url: '/_server/account/logout', headers: { cookie, accept: BROWSER, 'content-type': 'application/x-www-form-urlencoded' }, payload: '' })
  t.equal(out.statusCode, 303)
  t.equal(out.headers.location, '/_server/login_page')
})

test('the script is a file of the _server app', async (t) => {
  const server = await accountServer({ login: true })
  t.teardown(() => server.close())
  const js = await server.inject('/_server/account.js')
  t.equal(js.statusCode, 200)
  t.equal(js.headers['content-type'], 'text/javascript; charset=utf-8')
  t.equal(js.headers['x-content-type-options'], 'nosniff')
  t.match(js.body, "querySelectorAll('time[datetime]')")
})

test('a form of the page sent after freshFor lapsed: confirm it is you, then back on the account page', async (t) => {
  const clock = fakeDateNow(t)
  const server = await accountServer({ login: true, account: { freshFor: 600 } })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  t.match((await page(server, '/_server/account', { cookie })).body, 'action="/_server/account/password"', 'fresh when the page was shown')
  clock.advance(601_000)
  const form = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) => server.inject({
    method: 'POST', url, headers: { accept: BROWSER, 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(fields).toString()
  })
  for (const url of ['/_server/account/password', '/_server/account/sessions/revoke-others']) {
    const fields: Record<string, string> = url.endsWith('password') ? { current_password: 'alice-pass', new_password: 'violet-kestrel-2931', new_password_confirm: 'violet-kestrel-2931' } : {}
    const res = await form(url, fields, { cookie })
    t.equal(res.statusCode, 303, `${url}: not a plain-text 401`)
    t.equal(res.headers.location, '/_server/login_page?next=%2F_server%2Faccount&reauth=1')
  }
  const login = await form('/_server/login', { identity: 'alice', password: 'alice-pass', next: '/_server/account' })
  t.equal(login.statusCode, 303)
  t.equal(login.headers.location, '/_server/account', 'signed in again: back on the account page, its forms there again')
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'violet-kestrel-2931' } })).statusCode, 401, 'the refused form changed nothing')
})
