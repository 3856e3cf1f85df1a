import { test, type Test } from 'tap'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { MemoryApiKeyStore } from '@fastify-gatehouse/auth'

// Issue 25 item 15: `curl -u` against the README's ready server (no auth
// component: only the login surface signs callers in) said a bare 403; a
// server whose auth takes only bearer credentials said "The basic scheme is
// not accepted". Both now name what is accepted (D-AUTH-73, D-AUTH-74).

class Shop extends RoutedApplication {
  @route('/orders', { authRule: 'admin|ops' })
  async orders () { return [] }
}

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

async function listen (t: Test, server: AppServer): Promise<string> {
  t.teardown(() => server.close())
  return await server.serve('127.0.0.1', 0)
}

test('the README ready server: Basic gets a 403 that says the scheme is not read, and where to sign in', async (t) => {
  const url = await listen(t, new AppServer({
    logger: false,
    primary: new Shop(),
    users: { alice: { password: 'alice-long-pass', tags: 'ops' } },
    adminPassword: 'keeper-of-keys-9',
    login: true
  }))
  const res = await fetch(`${url}/orders`, { headers: { authorization: basic('alice', 'alice-long-pass') } })
  t.equal(res.status, 403)
  t.equal(res.headers.get('www-authenticate'), null)
  t.same(await res.json(), {
    statusCode: 403,
    code: 'GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED',
    error: 'Forbidden',
    message: 'The Basic scheme is not accepted here: this route reads no Authorization header; sign in for a session cookie instead',
    login_url: '/_server/login_page?next=%2Forders'
  })
  const signIn = await fetch(`${url}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'alice', password: 'alice-long-pass' }) })
  t.equal(signIn.status, 200)
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!
  t.equal((await fetch(`${url}/orders`, { headers: { cookie } })).status, 200, 'which is the way in')
})

test('auth with bearer credentials only: Basic gets 401 naming the schemes accepted, with their challenge', async (t) => {
  const tokens = new MemoryApiKeyStore()
  const url = await listen(t, new AppServer({ logger: false, primary: new Shop(), tokens, login: true }))
  const res = await fetch(`${url}/orders`, { headers: { authorization: basic('alice', 'alice-long-pass') } })
  t.equal(res.status, 401)
  t.equal(res.headers.get('www-authenticate'), 'Bearer realm="gatehouse"')
  t.same(await res.json(), {
    statusCode: 401,
    code: 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME',
    error: 'Unauthorized',
    message: 'The Basic scheme is not accepted here. Sign in with Bearer credentials',
    login_url: '/_server/login_page?next=%2Forders'
  })
})
