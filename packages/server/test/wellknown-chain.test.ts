// AppServer recipes can name wellknown and cors; wellknown (150) refuses dot
// paths before auth (400), while its documents go through the whole chain.
import { test } from 'tap'
import { Redirect } from '@fastify-gatehouse/core'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'

class Site extends RoutedApplication {
  @route('/.env')
  async env () { return 'SECRET=1' }

  @route('/account', { authRule: 'member' })
  async account () { return { ok: true } }
}

function build (): AppServer {
  return new AppServer({
    logger: false,
    primary: new Site(),
    auth: { bearer: { api: { token: 'a-token-for-the-wellknown-chain-test', tags: 'member' } } },
    middleware: {
      cors: { allowOrigins: 'https://spa.example' },
      wellknown: {
        documents: {
          'openid-configuration': { issuer: 'https://id.example.com' },
          'change-password': new Redirect('https://app.example.com/account/password')
        }
      }
    }
  })
}

test('a dot path is 404 before auth: a bad credential is not even looked at', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const res = await server.inject({ url: '/.env', headers: { authorization: 'Bearer wrong' } })
  t.equal(res.statusCode, 404)
  t.same(res.json(), { statusCode: 404, code: 'GATEHOUSE_WELLKNOWN_NOT_FOUND', error: 'Not Found', message: 'Not Found' })
  t.notMatch(res.body, /SECRET/)
  t.notOk(res.headers['www-authenticate'])
  const ordinary = await server.inject({ url: '/account', headers: { authorization: 'Bearer wrong' } })
  t.equal(ordinary.statusCode, 401, 'elsewhere auth answers as usual')
})

test('documents get the rest of the chain: CORS headers for an allowed origin', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const res = await server.inject({ url: '/.well-known/openid-configuration', headers: { origin: 'https://spa.example' } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { issuer: 'https://id.example.com' })
  t.equal(res.headers['access-control-allow-origin'], 'https://spa.example')
  const moved = await server.inject('/.well-known/change-password')
  t.equal(moved.statusCode, 302)
  t.equal(moved.headers.location, 'https://app.example.com/account/password')
  const probe = await server.inject({ url: '/.git/config', headers: { origin: 'https://spa.example' } })
  t.equal(probe.statusCode, 404)
  t.notOk(probe.headers['access-control-allow-origin'], 'refused at 150, before cors (300)')
})

test('a preflight about a document (declared before cors, at 150) gets cors\'s options, as the document does', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const res = await server.inject({ method: 'OPTIONS', url: '/.well-known/openid-configuration', headers: { origin: 'https://spa.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-client' } })
  t.equal(res.statusCode, 204)
  t.equal(res.headers['access-control-allow-origin'], 'https://spa.example')
  t.equal(res.headers['access-control-allow-headers'], 'x-client')
})
