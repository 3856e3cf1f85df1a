// Issue 16, item 5, end to end through AppServer: a route with `fresh` needs
// a recent sign-in. A session signed in too long ago is asked to sign in
// again (browsers: the login page with reauth=1; API callers: 401 with the
// RFC 9470 challenge); signing in again lets it through. Basic sends the
// password with every request, so it is always fresh; an API key never is.
// D-AUTH-29, D-ERRORS-12, D-ERRORS-13, D-SESSION-22.
// Date.now is faked (every part reads it), so "too long ago" is a step of the test.
import { test } from 'tap'
import type { FastifyRequest } from 'fastify'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { fakeDateNow } from '../../../test-helpers/clock.js'
import { basic, hs256 } from './helpers/credentials.js'

const SECRET = 'fresh-test-secret-of-at-least-32-bytes'
const BROWSER = 'text/html,application/xhtml+xml,*/*;q=0.8'
const API_KEY = `gak_00000000000000aa_${'d'.repeat(43)}`
const CHALLENGE = 'Bearer realm="gatehouse", error="insufficient_user_authentication", error_description="A more recent sign-in is required", max_age="600"'

class Account extends RoutedApplication {
  @route('/security', { fresh: 600 })
  async security (request: FastifyRequest) { return { security: request.scope.auth?.identity } }

  @route('/keys', { method: 'POST', authRule: 'ops', fresh: 600 })
  async keys (request: FastifyRequest) { return { issued: true, by: request.scope.auth?.identity } }

  @route('/orders', { authRule: 'ops' })
  async orders () { return { orders: [] } }
}

function build () {
  return new AppServer({
    logger: false,
    primary: new Account(),
    auth: { basic: { root: { password: 'root-pass', tags: 'ops' } }, jwt: [{ name: 'idp', secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags', allowedTags: ['ops'] }] },
    users: { alice: { password: 'alice-pass', tags: 'ops' } },
    tokens: { deployer: { key: API_KEY, tags: 'ops' } },
    login: true
  })
}

const cookieOf = (res: { headers: Record<string, unknown> }): string => String(res.headers['set-cookie']).split(';')[0]!

test('a session signed in too long ago is asked to sign in again; signing in again lets it through', async (t) => {
  const clock = fakeDateNow(t)
  const server = build()
  t.teardown(() => server.close())
  const login = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })
  t.equal(login.statusCode, 200)
  let cookie = cookieOf(login)
  t.same((await server.inject({ url: '/security', headers: { cookie } })).json(), { security: 'alice' }, 'just signed in: fresh')
  t.equal((await server.inject({ method: 'POST', url: '/keys', headers: { cookie } })).statusCode, 200)

  clock.advance(600_001)
  t.equal((await server.inject({ url: '/orders', headers: { cookie } })).statusCode, 200, 'the session lives on: routes without fresh still answer')

  const api = await server.inject({ url: '/security', headers: { cookie, accept: 'application/json' } })
  t.equal(api.statusCode, 401, 'an API caller: 401')
  t.equal(api.headers['www-authenticate'], CHALLENGE, 'with the RFC 9470 challenge')
  t.same(api.json(), {
    statusCode: 401,
    code: 'GATEHOUSE_CORE_REAUTHENTICATE',
    error: 'Unauthorized',
    message: 'This route needs a sign-in within the last 600 seconds; sign in again',
    max_age: 600,
    login_url: '/_server/login_page?next=%2Fsecurity&reauth=1'
  })
  const post = await server.inject({ method: 'POST', url: '/keys', headers: { cookie } })
  t.equal(post.statusCode, 401, 'a POST too')
  t.equal(post.json().code, 'GATEHOUSE_CORE_REAUTHENTICATE')

  const nav = await server.inject({ url: '/security?tab=2', headers: { cookie, accept: BROWSER } })
  t.equal(nav.statusCode, 302, 'a browser navigation goes to the login page')
  t.equal(nav.headers.location, '/_server/login_page?next=%2Fsecurity%3Ftab%3D2&reauth=1')
  t.equal(nav.headers['cache-control'], 'no-store')
  const page = await server.inject({ url: nav.headers.location, headers: { cookie, accept: BROWSER } })
  t.equal(page.statusCode, 200)
  t.match(page.body, '<p id="reauth">Sign in again to continue.</p>', 'the page says why')
  t.match(page.body, '<input type="hidden" name="next" value="/security?tab=2">')
  t.notMatch((await server.inject('/_server/login_page?next=%2Fsecurity')).body, 'Sign in again', 'not without reauth=1')
  t.notMatch((await server.inject('/_server/login_page?reauth=yes')).body, 'Sign in again', 'reauth is 1 or nothing')

  // The page's no-JavaScript form: signing in again lands on next, with a new session.
  const again = await server.inject({
    method: 'POST',
    url: '/_server/login',
    headers: { cookie, accept: BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ identity: 'alice', password: 'alice-pass', next: '/security?tab=2' }).toString()
  })
  t.equal(again.statusCode, 303)
  t.equal(again.headers.location, '/security?tab=2')
  const renewed = cookieOf(again)
  t.not(renewed, cookie, 'a new session id')
  cookie = renewed
  t.same((await server.inject({ url: '/security?tab=2', headers: { cookie } })).json(), { security: 'alice' }, 'fresh again: 200')
  t.equal((await server.inject({ method: 'POST', url: '/keys', headers: { cookie } })).statusCode, 200)
  clock.advance(600_001)
  t.equal((await server.inject({ url: '/security', headers: { cookie } })).statusCode, 401, 'and stale again 600 s later')
})

test('Basic is always fresh; an API key never; a JWT by its auth_time', async (t) => {
  const clock = fakeDateNow(t)
  const server = build()
  t.teardown(() => server.close())
  await server.ready()
  clock.advance(86_400_000)
  const nowS = Math.floor(clock.now() / 1000)
  const token = (claims: object): string => `Bearer ${hs256({ sub: 'joe', tags: ['ops'], exp: nowS + 3600, ...claims }, SECRET)}`
  const cases: Array<[string, string, number]> = [
    ['Basic', basic('root', 'root-pass'), 200],
    ['an API key', `Bearer ${API_KEY}`, 401],
    ['a JWT signed in a minute ago', token({ auth_time: nowS - 60 }), 200],
    ['a JWT signed in an hour ago', token({ auth_time: nowS - 3600 }), 401],
    ['a JWT that does not say', token({}), 401]
  ]
  for (const [name, authorization, status] of cases) {
    const res = await server.inject({ method: 'POST', url: '/keys', headers: { authorization } })
    t.equal(res.statusCode, status, name)
    if (status === 200) t.same(res.json(), { issued: true, by: name === 'Basic' ? 'root' : 'joe' }, `${name}: the handler ran`)
    else {
      t.equal(res.headers['www-authenticate'], CHALLENGE, `${name}: the challenge`)
      t.equal(res.json().code, 'GATEHOUSE_CORE_REAUTHENTICATE', `${name}: the code`)
    }
  }
  const keyAgain = await server.inject({ method: 'POST', url: '/keys', headers: { authorization: `Bearer ${API_KEY}` } })
  t.equal(keyAgain.statusCode, 401, 'an API key stays refused: there is no sign-in to renew')
  t.equal((await server.inject({ url: '/orders', headers: { authorization: `Bearer ${API_KEY}` } })).statusCode, 200, 'routes without fresh take it')
})

test('anonymous callers of a fresh route sign in as usual: no reauth', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const nav = await server.inject({ url: '/security', headers: { accept: BROWSER } })
  t.equal(nav.statusCode, 302)
  t.equal(nav.headers.location, '/_server/login_page?next=%2Fsecurity')
  const api = await server.inject({ url: '/security' })
  t.equal(api.statusCode, 401)
  t.equal(api.headers['www-authenticate'], CHALLENGE)
  t.equal(api.json().login_url, '/_server/login_page?next=%2Fsecurity')
  const ruled = await server.inject({ method: 'POST', url: '/keys' })
  t.equal(ruled.statusCode, 403, 'the authRule comes first')
  t.equal(ruled.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
})

test('a bad fresh on a @route fails the boot, naming the route', async (t) => {
  class Bad extends RoutedApplication {
    @route('/bad', { fresh: 0 })
    async bad () { return 'never' }
  }
  const server = new AppServer({ logger: false, primary: new Bad() })
  t.teardown(() => server.close())
  await t.rejects(server.ready(), { code: 'GATEHOUSE_CORE_INVALID_FRESH', message: 'Invalid fresh 0 on GET /bad: must be a whole number of seconds from 1 to 31536000 (one year)' })
})
