// csrf + session + login through AppServer: with the login surface on, csrf
// is on by default and closes login CSRF and cross-site form posts.
import { test } from 'tap'
import type { FastifyRequest } from 'fastify'
import { AppServer, RoutedApplication, route, type AppServerOptions } from '@fastify-gatehouse/server'

class Bank extends RoutedApplication {
  @route('/transfer', { method: 'POST', authRule: 'member' })
  async transfer (request: FastifyRequest) { return { from: request.scope.auth?.identity } }
}

const HOST = 'bank.example.com'
const SELF = `http://${HOST}`
const EVIL = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }
const FORM = 'application/x-www-form-urlencoded'
const REFUSED = { statusCode: 403, code: 'GATEHOUSE_CSRF_CROSS_SITE', error: 'Forbidden', message: 'Cross-site request refused: it carries the session cookie but comes from another origin' }

function build (options: Partial<AppServerOptions> = {}): AppServer {
  return new AppServer({
    logger: false,
    primary: new Bank(),
    users: { alice: { password: 'alice-pass', tags: 'member' } },
    auth: { bearer: { api: { token: 'an-api-token-for-the-csrf-login-test', tags: 'member' } } },
    login: true,
    ...options
  })
}

async function signIn (server: AppServer, cookieName = 'session_id'): Promise<string> {
  const res = await server.inject({ method: 'POST', url: '/_server/login', headers: { host: HOST, origin: SELF, 'sec-fetch-site': 'same-origin' }, payload: { identity: 'alice', password: 'alice-pass' } })
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`)
  const line = ([] as string[]).concat(res.headers['set-cookie'] as string | string[]).find((c) => c.startsWith(`${cookieName}=`))!
  return line.split(';')[0]!
}

test('a cross-site form POST to /_server/login is refused, with or without a session cookie', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const body = 'identity=mallory&password=mallory-pass'
  const fresh = await server.inject({ method: 'POST', url: '/_server/login', headers: { host: HOST, 'content-type': FORM, ...EVIL }, payload: body })
  t.equal(fresh.statusCode, 403, 'login CSRF: the victim has no session yet')
  t.same(fresh.json(), REFUSED)
  t.notOk(fresh.headers['set-cookie'], 'no session is started')
  const cookie = await signIn(server)
  const withCookie = await server.inject({ method: 'POST', url: '/_server/login', headers: { host: HOST, cookie, 'content-type': FORM, ...EVIL }, payload: body })
  t.same(withCookie.json(), REFUSED)
  const logout = await server.inject({ method: 'POST', url: '/_server/logout', headers: { host: HOST, cookie, ...EVIL } })
  t.same(logout.json(), REFUSED, 'a forged logout is refused too')
})

test('a cross-site form POST to a session-protected route is refused; same-origin passes', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const cookie = await signIn(server)
  const forged = await server.inject({ method: 'POST', url: '/transfer', headers: { host: HOST, cookie, 'content-type': FORM, ...EVIL }, payload: 'to=mallory' })
  t.equal(forged.statusCode, 403)
  t.same(forged.json(), REFUSED)
  const own = await server.inject({ method: 'POST', url: '/transfer', headers: { host: HOST, cookie, origin: SELF, 'sec-fetch-site': 'same-origin' } })
  t.equal(own.statusCode, 200)
  t.same(own.json(), { from: 'alice' })
  const ownForm = await server.inject({ method: 'POST', url: '/_server/login', headers: { host: HOST, origin: SELF, 'content-type': FORM, accept: 'text/html' }, payload: 'identity=alice&password=alice-pass&next=/transfer' })
  t.equal(ownForm.statusCode, 303, 'the same-origin login form still signs in')
  t.equal(ownForm.headers.location, '/transfer')
})

test('a cross-site request with an Authorization header passes', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const cookie = await signIn(server)
  const res = await server.inject({ method: 'POST', url: '/transfer', headers: { host: HOST, cookie, authorization: 'Bearer an-api-token-for-the-csrf-login-test', ...EVIL } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { from: 'api' })
})

test('csrf follows the caller: off with middleware.csrf false, on without login (the session is on: D-CSRF-05), on when asked', async (t) => {
  const off = build({ middleware: { csrf: false } })
  t.teardown(() => off.close())
  const cookie = await signIn(off)
  t.equal((await off.inject({ method: 'POST', url: '/transfer', headers: { host: HOST, cookie, ...EVIL } })).statusCode, 200)

  const noLogin = build({ login: false })
  t.teardown(() => noLogin.close())
  const cookie2 = await signIn(noLogin)
  t.same((await noLogin.inject({ method: 'POST', url: '/transfer', headers: { host: HOST, cookie: cookie2, ...EVIL } })).json(), REFUSED)

  const asked = build({ login: false, middleware: { csrf: { allowOrigins: 'https://partner.example' } } })
  t.teardown(() => asked.close())
  const cookie3 = await signIn(asked)
  t.same((await asked.inject({ method: 'POST', url: '/transfer', headers: { host: HOST, cookie: cookie3, ...EVIL } })).json(), REFUSED)
  t.equal((await asked.inject({ method: 'POST', url: '/transfer', headers: { host: HOST, cookie: cookie3, origin: 'https://partner.example', 'sec-fetch-site': 'cross-site' } })).statusCode, 200)
})

test('a renamed session cookie is the one csrf watches', async (t) => {
  const server = build({ session: { cookieName: 'bank_sid' } })
  t.teardown(() => server.close())
  const cookie = await signIn(server, 'bank_sid')
  t.match(cookie, /^bank_sid=/)
  t.same((await server.inject({ method: 'POST', url: '/transfer', headers: { host: HOST, cookie, ...EVIL } })).json(), REFUSED)
})
