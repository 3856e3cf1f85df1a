import { test } from 'tap'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { AppServer } from '@fastify-gatehouse/server'

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

// AppServer's `auth` takes the auth component's options in code: a store and
// functions too, and challengeAnonymous beside the login surface.
test('AppServer: basic from a UserStore, bearer.auth and challengeAnonymous with the login surface on', async (t) => {
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'alice-password', tags: 'ops' })
  const server = new AppServer({
    logger: false,
    users,
    login: true,
    auth: {
      basic: { users },
      bearer: { auth: (token) => token === 'svc-token' ? 'ops' : null },
      challengeAnonymous: true
    }
  })
  t.teardown(() => server.close())
  server.register(async (app) => {
    app.get('/ops', { authRule: 'ops' }, async (req) => ({ identity: req.scope.auth?.identity, backend: req.scope.auth?.backend }))
    app.get('/quiet', { authRule: 'ops', config: { challengeAnonymous: false } }, async () => 'ok')
  })
  t.same((await server.inject({ url: '/ops', headers: { authorization: basic('alice', 'alice-password') } })).json(), { identity: 'alice', backend: 'basic' })
  t.same((await server.inject({ url: '/ops', headers: { authorization: 'Bearer svc-token' } })).json(), { identity: 'bearer', backend: 'bearer' })

  const nav = await server.inject({ url: '/ops', headers: { accept: 'text/html' } })
  t.equal(nav.statusCode, 302, 'a browser navigation still goes to the login page')
  t.equal(nav.headers.location, '/_server/login_page?next=%2Fops')
  const api = await server.inject({ url: '/ops', headers: { accept: 'application/json' } })
  t.equal(api.statusCode, 401)
  t.same(api.headers['www-authenticate'], ['Basic realm="gatehouse", charset="UTF-8"', 'Bearer realm="gatehouse"'])
  t.equal(api.json().code, 'GATEHOUSE_CORE_UNAUTHENTICATED')
  const quiet = await server.inject({ url: '/quiet', headers: { accept: 'application/json' } })
  t.same([quiet.statusCode, quiet.json().code, quiet.json().message], [403, 'GATEHOUSE_CORE_FORBIDDEN', 'Sign in with Basic or Bearer credentials'])

  // The login form and the session keep working beside it.
  const cookie = String((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-password' } })).headers['set-cookie']).split(';')[0]!
  t.same((await server.inject({ url: '/ops', headers: { cookie } })).json(), { identity: 'alice', backend: 'session' })
})
