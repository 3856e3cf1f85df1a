import { test, type Test } from 'tap'
import type { FastifyRequest } from 'fastify'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { PAGE_HEADERS } from '@fastify-gatehouse/core'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'

const FAST = { N: 1024, r: 8, p: 1 }
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

class Shop extends RoutedApplication {
  @route('/orders', { authRule: 'ops' })
  async orders (request: FastifyRequest) { return { for: request.scope.auth?.identity } }
}

async function build () {
  const users = new MemoryUserStore({ scrypt: FAST })
  await users.add('alice', { password: 'alice-password', tags: ['ops'] })
  await users.add('<b>bob</b>', { password: 'bob-password', tags: [] })
  const server = new AppServer({
    logger: false,
    primary: new Shop(),
    users,
    login: true,
    // Never contacted: a callback without a sign-in in progress is refused before discovery.
    externalUrl: 'https://app.example',
    serverApp: { oidc: { corp: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's' } } }
  })
  await server.ready()
  const signIn = async (identity: string, password: string): Promise<string> => {
    const res = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity, password } })
    if (res.statusCode !== 200) throw new Error(`sign-in of ${identity}: ${res.statusCode}`)
    return String(res.headers['set-cookie']).split(';')[0]!
  }
  const page = (url: string, cookie?: string) => server.inject({ url, headers: { accept: BROWSER, ...(cookie === undefined ? {} : { cookie }) } })
  return { server, signIn, page }
}

function assertPageHeaders (t: Test, headers: Record<string, unknown>): void {
  t.equal(headers['content-type'], 'text/html; charset=utf-8')
  for (const [name, value] of Object.entries(PAGE_HEADERS)) t.equal(headers[name], value, name)
}

const BAR = (identity: string) => `<header class="signed-in">
<p>Signed in as <strong>${identity}</strong></p>
<form method="post" action="/_server/account/logout">
<button type="submit">Sign out</button>
</form>
</header>`

test('the login page while signed in: who, continue to next, sign out, or sign in as someone else', async (t) => {
  const { server, signIn, page } = await build()
  t.teardown(() => server.close())
  const cookie = await signIn('alice', 'alice-password')
  const res = await page('/_server/login_page?next=%2Forders%3Fpage%3D2', cookie)
  t.equal(res.statusCode, 200)
  assertPageHeaders(t, res.headers)
  t.match(res.body, BAR('alice'))
  t.match(res.body, '<p>You are signed in as <strong>alice</strong>.</p>\n<p><a class="button" href="/orders?page=2">Continue</a></p>\n<h2>Sign in as someone else</h2>')
  t.match(res.body, '<input id="identity" name="identity" autocomplete="username" required autofocus>', 'the form is still there, empty')
  const anonymous = await page('/_server/login_page?next=/orders')
  t.notMatch(anonymous.body, /Signed in as|You are signed in|Continue/, 'nobody signed in: the page as before')
})

test('the login page asked to confirm it is you (reauth=1): the identity filled in, the password asked', async (t) => {
  const { server, signIn, page } = await build()
  t.teardown(() => server.close())
  const cookie = await signIn('<b>bob</b>', 'bob-password')
  const res = await page('/_server/login_page?next=%2F_server%2Faccount&reauth=1', cookie)
  t.equal(res.statusCode, 200)
  t.match(res.body, '<title>Confirm it&#39;s you</title>')
  t.match(res.body, '<h1>Confirm it&#39;s you</h1>\n<p id="reauth">Sign in again to continue.</p>')
  t.match(res.body, '<input type="hidden" name="next" value="/_server/account">', 'back to the account page afterwards')
  t.match(res.body, '<input id="identity" name="identity" autocomplete="username" required value="&lt;b&gt;bob&lt;/b&gt;">', 'escaped')
  t.match(res.body, '<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>')
  t.notMatch(res.body, 'Continue', 'going on without signing in again is what reauth refuses')
  t.notMatch(res.body, '<b>bob</b>')
  const anonymous = await page('/_server/login_page?reauth=1&next=/_server/account')
  t.match(anonymous.body, '<h1>Confirm it&#39;s you</h1>')
  t.match(anonymous.body, 'required autofocus>', 'signed out meanwhile: an empty form')
  t.notMatch((await page('/_server/login_page?reauth=yes', cookie)).body, 'Confirm it', 'only reauth=1')
})

test('GET /_server/logout: a page with a sign-out button; the GET changes nothing', async (t) => {
  const { server, signIn, page } = await build()
  t.teardown(() => server.close())
  const cookie = await signIn('alice', 'alice-password')
  const res = await page('/_server/logout', cookie)
  t.equal(res.statusCode, 200)
  assertPageHeaders(t, res.headers)
  t.notOk(res.headers['set-cookie'], 'the session is untouched')
  t.match(res.body, '<title>Sign out</title>')
  t.match(res.body, `<p>You are signed in as <strong>alice</strong>.</p>
<form method="post" action="/_server/account/logout">
<button type="submit">Sign out</button>
</form>`)
  t.equal((await server.inject({ url: '/orders', headers: { cookie } })).statusCode, 200, 'still signed in after the GET')
  const anonymous = await page('/_server/logout')
  t.equal(anonymous.statusCode, 200)
  t.match(anonymous.body, '<p>You are not signed in.</p>\n<p><a class="button" href="/_server/login_page">Sign in</a></p>')
  t.notMatch(anonymous.body, '<form')
})

test('the sign-in-failed page names who is still signed in, with sign-out', async (t) => {
  const { server, signIn, page } = await build()
  t.teardown(() => server.close())
  const cookie = await signIn('alice', 'alice-password')
  const res = await page('/_server/auth/oidc:corp/callback?state=forged&code=x', cookie)
  t.equal(res.statusCode, 400)
  assertPageHeaders(t, res.headers)
  t.match(res.body, '<h1>Sign-in failed</h1>')
  t.match(res.body, BAR('alice'))
  t.match(res.body, '<a class="button" href="/_server/login_page">Back to sign in</a>')
  const anonymous = await page('/_server/auth/oidc:corp/callback?state=forged&code=x')
  t.equal(anonymous.statusCode, 400)
  t.notMatch(anonymous.body, /Signed in as|Sign out/)
})

test('AppServer: a signed-in browser refused by a route rule gets the 403 page, pointing at the _server app', async (t) => {
  const { server, signIn, page } = await build()
  t.teardown(() => server.close())
  const cookie = await signIn('<b>bob</b>', 'bob-password')
  const res = await page('/orders?page=2', cookie)
  t.equal(res.statusCode, 403)
  assertPageHeaders(t, res.headers)
  t.match(res.body, '<link rel="stylesheet" href="/_server/login.css">')
  t.match(res.body, 'Signed in as <strong>&lt;b&gt;bob&lt;/b&gt;</strong>.')
  t.match(res.body, '<form method="post" action="/_server/account/logout">\n<input type="hidden" name="next" value="/orders?page=2">\n<button type="submit">Switch account</button>')
  const css = await server.inject('/_server/login.css')
  t.equal(css.statusCode, 200, 'the stylesheet it names is served')
  const api = await server.inject({ url: '/orders', headers: { cookie } })
  t.equal(api.json().code, 'GATEHOUSE_CORE_FORBIDDEN', 'API callers keep the JSON 403')
})
