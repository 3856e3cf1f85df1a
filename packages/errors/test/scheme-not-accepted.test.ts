import { test } from 'tap'
import { Avatar } from '@fastify-gatehouse/core'
import { build } from './helpers/build.js'

// Issue 25 item 15, D-AUTH-73: an anonymous caller whose Authorization header
// nothing reads (no auth component) is told so, not given a bare 403.

const BASIC = `Basic ${Buffer.from('alice:pw').toString('base64')}`

async function app (login: boolean) {
  return build({ login }, (app) => {
    // A session stand-in: the only way in when no auth component reads headers.
    app.addHook('onRequest', async (req) => {
      if (req.headers.cookie === 'session_id=alice') req.scope.auth = new Avatar('alice', { tags: 'ops', backend: 'session' })
    })
    app.get('/orders', { authRule: 'ops' }, async () => ['order'])
    app.get('/open', async () => 'open')
  })
}

test('no auth component: a credential on a protected route gets 403 naming the scheme it sent', async (t) => {
  for (const login of [false, true]) {
    const { app: server } = await app(login)
    t.teardown(() => server.close())
    const res = await server.inject({ url: '/orders', headers: { authorization: BASIC } })
    t.equal(res.statusCode, 403, `login ${String(login)}`)
    t.equal(res.headers['www-authenticate'], undefined, 'no challenge: there is no scheme to offer')
    t.same(res.json(), {
      statusCode: 403,
      code: 'GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED',
      error: 'Forbidden',
      message: 'The Basic scheme is not accepted here: this route reads no Authorization header; sign in for a session cookie instead',
      ...(login ? { login_url: '/_server/login_page?next=%2Forders' } : {})
    }, `login ${String(login)}: the body says where to sign in when the login surface is on`)
    const plain = await server.inject({ url: '/orders', headers: { authorization: 'Token abc', accept: 'text/plain' } })
    t.equal(plain.json().message, 'The Token scheme is not accepted here: this route reads no Authorization header; sign in for a session cookie instead', 'the scheme as sent')
    const odd = await server.inject({ url: '/orders', headers: { authorization: 'b@d' } })
    t.equal(odd.json().message, 'The Authorization header is not accepted here: this route reads no Authorization header; sign in for a session cookie instead', 'an unreadable scheme is not echoed')
    const long = await server.inject({ url: '/orders', headers: { authorization: `${'X'.repeat(40)} abc` } })
    t.equal(long.json().code, 'GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED')
    t.notMatch(long.json().message, /XXXXXXXX/, 'a long scheme is not echoed')
  }
})

test('without a header, or signed in, nothing changes', async (t) => {
  const { app: server } = await app(true)
  t.teardown(() => server.close())
  const anonymous = await server.inject('/orders')
  t.same(anonymous.json(), { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message: 'Insufficient permissions for this route' })
  t.equal((await server.inject({ url: '/orders', headers: { authorization: BASIC, cookie: 'session_id=alice' } })).statusCode, 200, 'the session caller passes; the header is ignored')
  t.equal((await server.inject({ url: '/open', headers: { authorization: BASIC } })).body, 'open', 'an open route stays open')
  const browser = await server.inject({ url: '/orders', headers: { authorization: BASIC, accept: 'text/html' } })
  t.equal(browser.statusCode, 302, 'a browser navigation goes to the login page')
  t.equal(browser.headers.location, '/_server/login_page?next=%2Forders')
})
