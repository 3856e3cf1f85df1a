// GET /_server/account/me: who the caller is, for every kind of caller.
import { test } from 'tap'
import { sessionKey } from '@fastify-gatehouse/session'
import { accountServer, injectSignIn, NOT_USERS } from './helpers/account.js'

test('anonymous: 401 GATEHOUSE_SERVER_NOT_SIGNED_IN, no-store; with the login surface, browsers go to sign in', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const res = await server.inject('/_server/account/me')
  t.equal(res.statusCode, 401)
  t.same(res.json(), { statusCode: 401, code: 'GATEHOUSE_SERVER_NOT_SIGNED_IN', error: 'Unauthorized', message: 'Sign in first' })
  t.equal(res.headers['cache-control'], 'no-store')

  const surface = await accountServer({ login: true })
  t.teardown(() => surface.close())
  const page = await surface.inject({ url: '/_server/account/me', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 302, 'a browser navigation is sent to the login page')
  t.match(page.headers.location, /^\/_server\/login_page\?next=/)
  const api = await surface.inject({ url: '/_server/account/me', headers: { accept: 'application/json' } })
  t.equal(api.statusCode, 401)
  t.match(api.json(), { code: 'GATEHOUSE_SERVER_NOT_SIGNED_IN', login_url: /^\/_server\/login_page\?next=/ })
  t.match(api.headers['www-authenticate'], /^Bearer realm="gatehouse"/)
})

test('a password session: identity, tags, backend and the session (handle, times); never the id or its key', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const before = Date.now()
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const res = await server.inject({ url: '/_server/account/me', headers: { cookie } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store')
  const body = res.json()
  t.same(Object.keys(body), ['identity', 'tags', 'backend', 'session'])
  t.match(body, { identity: 'alice', tags: ['member'], backend: 'session' })
  t.same(Object.keys(body.session), ['handle', 'signed_in_at', 'created_at', 'last_seen_at'])
  t.match(body.session.handle, /^[A-Za-z0-9_-]{22}$/)
  const signedIn = Date.parse(body.session.signed_in_at)
  t.ok(signedIn >= before && signedIn <= Date.now(), 'signed in when the login ran')
  t.equal(body.session.created_at, body.session.signed_in_at)
  t.ok(Date.parse(body.session.last_seen_at) >= signedIn, 'last seen: now')
  const id = cookie.slice('session_id='.length)
  t.notOk(res.body.includes(id), 'not the session id')
  t.notOk(res.body.includes(sessionKey(id)), 'not the store key')
  const again = await server.inject({ url: '/_server/account/me', headers: { cookie } })
  t.equal(again.json().session.handle, body.session.handle, 'the handle is stable')
})

test('callers that are not users may read /account/me (session: null)', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const backends: Record<string, [string, string]> = {
    'an API key': ['alice', 'api_key'],
    'a static bearer token': ['ci', 'bearer'],
    'a JWT': ['alice', 'jwt:idp'],
    'Basic credentials': ['basil', 'basic']
  }
  for (const [what, authorization] of NOT_USERS) {
    const res = await server.inject({ url: '/_server/account/me', headers: { authorization } })
    t.equal(res.statusCode, 200, what)
    const [identity, backend] = backends[what]!
    t.match(res.json(), { identity, backend, session: null }, what)
    t.equal(res.headers['cache-control'], 'no-store')
  }
  // A header credential wins over a session cookie: the caller is the key, not the session.
  const cookie = await injectSignIn(server, 'bob', 'bob-pass-1')
  const both = await server.inject({ url: '/_server/account/me', headers: { cookie, authorization: 'Bearer ci-token' } })
  t.match(both.json(), { identity: 'ci', backend: 'bearer', session: null })
})

test('on by default with a login method; serverApp.account: false turns them off; none without a login method', async (t) => {
  const off = await accountServer({ account: false })
  t.teardown(() => off.close())
  const cookie = await injectSignIn(off, 'alice', 'alice-pass')
  for (const url of ['/_server/account/me', '/_server/account/sessions']) {
    const res = await off.inject({ url, headers: { cookie } })
    t.equal(res.statusCode, 404, `${url} is not there`)
    t.equal(res.json().code, 'GATEHOUSE_ERRORS_NOT_FOUND')
  }
  t.equal((await off.inject({ method: 'POST', url: '/_server/logout', headers: { cookie } })).statusCode, 200, 'POST /logout stays')

  const { AppServer } = await import('@fastify-gatehouse/server')
  const bare = new AppServer({ logger: false, auth: { bearer: { ci: { token: 'ci-token' } } } })
  t.teardown(() => bare.close())
  t.equal((await bare.inject({ url: '/_server/account/me', headers: { authorization: 'Bearer ci-token' } })).statusCode, 404, 'no login method: nothing to manage')
  const asked = new AppServer({ logger: false, auth: { bearer: { ci: { token: 'ci-token' } } }, serverApp: { account: {} } })
  t.teardown(() => asked.close())
  t.same((await asked.inject({ url: '/_server/account/me', headers: { authorization: 'Bearer ci-token' } })).json(), { identity: 'ci', tags: [], backend: 'bearer', session: null }, 'on when asked for')
  t.equal((await asked.inject({ method: 'POST', url: '/_server/account/password', headers: { authorization: 'Bearer ci-token' } })).statusCode, 404, 'no password change without a password login')
})

test('bad account options are boot errors naming the option', async (t) => {
  const { AppServer } = await import('@fastify-gatehouse/server')
  for (const [account, pattern] of [
    [{ freshFor: 0 }, /serverApp\.account\.freshFor/],
    [{ freshFor: 1.5 }, /serverApp\.account\.freshFor/],
    [{ freshFor: 400 * 86_400 }, /serverApp\.account\.freshFor/],
    [{ fresh: 60 }, /serverApp\.account/],
    [true, /serverApp\.account/]
  ] as const) {
    const server = new AppServer({ logger: false, serverApp: { account: account as never } })
    await t.rejects(server.ready(), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: pattern }, JSON.stringify(account))
    await server.close()
  }
})
