import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import type { AuthOptions } from '@fastify-gatehouse/auth'
import { basicHeader, components } from './helpers/build.js'

const BASIC = 'Basic realm="gatehouse", charset="UTF-8"'
const BEARER = 'Bearer realm="gatehouse"'

const configs: Record<string, { options: AuthOptions, challenges: string | string[], message: string }> = {
  'Basic only': { options: { basic: { alice: { password: 'pw', tags: 'admin' } } }, challenges: BASIC, message: 'Sign in with Basic credentials' },
  'Bearer only': { options: { bearer: { ci: { token: 'ci-token', tags: 'admin' } } }, challenges: BEARER, message: 'Sign in with Bearer credentials' },
  both: { options: { basic: { alice: { password: 'pw', tags: 'admin' } }, bearer: { ci: { token: 'ci-token', tags: 'admin' } } }, challenges: [BASIC, BEARER], message: 'Sign in with Basic or Bearer credentials' }
}

async function build (auth: AuthOptions | undefined, login = false): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, {
    middleware: { errors: { login } },
    ...(auth === undefined ? {} : { authMiddleware: auth as Record<string, unknown> })
  }, { components })
  app.get('/plain', { authRule: 'admin' }, async (req) => req.scope.auth)
  app.get('/on', { authRule: 'admin', config: { challengeAnonymous: true } }, async (req) => req.scope.auth)
  app.get('/off', { authRule: 'admin', config: { challengeAnonymous: false } }, async (req) => req.scope.auth)
  await app.ready()
  return app
}

for (const [name, { options, challenges, message }] of Object.entries(configs)) {
  test(`${name}: an anonymous caller gets 403 naming the schemes, or 401 with the challenges when asked`, async (t) => {
    for (const pluginDefault of [false, true]) {
      const app = await build({ ...options, ...(pluginDefault ? { challengeAnonymous: true } : {}) })
      t.teardown(() => app.close())
      for (const [url, challenged] of [['/plain', pluginDefault], ['/on', true], ['/off', false]] as const) {
        const label = `plugin ${String(pluginDefault)}, ${url}`
        const res = await app.inject(url)
        if (challenged) {
          t.equal(res.statusCode, 401, label)
          t.same(res.headers['www-authenticate'], challenges, `${label}: the configured challenges`)
          t.same(res.json(), { statusCode: 401, code: 'GATEHOUSE_CORE_UNAUTHENTICATED', error: 'Unauthorized', message }, label)
        } else {
          t.equal(res.statusCode, 403, label)
          t.equal(res.headers['www-authenticate'], undefined, `${label}: no challenge`)
          t.same(res.json(), { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message }, label)
        }
      }
      const authorization = name === 'Bearer only' ? 'Bearer ci-token' : basicHeader('alice', 'pw')
      t.equal((await app.inject({ url: '/on', headers: { authorization } })).statusCode, 200, 'the right credentials pass')
    }
  })
}

test('a signed-in caller the rule refuses still gets the plain 403', async (t) => {
  const app = await build({ basic: { bob: { password: 'pw', tags: 'reader' } }, challengeAnonymous: true })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/on', headers: { authorization: basicHeader('bob', 'pw') } })
  t.equal(res.statusCode, 403)
  t.equal(res.headers['www-authenticate'], undefined)
  t.same(res.json(), { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message: 'Insufficient permissions for this route' })
})

test('no auth registered: 403 stays, naming no scheme, whatever the route asks', async (t) => {
  const app = await build(undefined)
  t.teardown(() => app.close())
  for (const url of ['/plain', '/on', '/off']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 403, url)
    t.equal(res.headers['www-authenticate'], undefined, url)
    t.same(res.json(), { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message: 'Insufficient permissions for this route' }, url)
  }
  // Auth registered with nothing configured accepts no scheme either.
  const empty = await build({})
  t.teardown(() => empty.close())
  const res = await empty.inject('/on')
  t.equal(res.statusCode, 403)
  t.equal(res.json().message, 'Insufficient permissions for this route')
})

test('with the login surface on, an anonymous browser navigation still goes to the login page', async (t) => {
  const app = await build({ ...configs.both!.options, challengeAnonymous: true }, true)
  t.teardown(() => app.close())
  const nav = await app.inject({ url: '/on?x=1', headers: { accept: 'text/html' } })
  t.equal(nav.statusCode, 302)
  t.equal(nav.headers.location, '/_server/login_page?next=%2Fon%3Fx%3D1')
  t.equal(nav.headers['www-authenticate'], undefined, 'no Basic prompt on the way to the login page')
  const api = await app.inject({ url: '/on', headers: { accept: 'application/json' } })
  t.equal(api.statusCode, 401)
  t.same(api.headers['www-authenticate'], [BASIC, BEARER], 'the challenges are kept, not the default one')
  t.same(api.json(), { statusCode: 401, code: 'GATEHOUSE_CORE_UNAUTHENTICATED', error: 'Unauthorized', message: 'Sign in with Basic or Bearer credentials', login_url: '/_server/login_page?next=%2Fon' })
  const forbidden = await app.inject({ url: '/off', headers: { accept: 'text/html' } })
  t.equal(forbidden.statusCode, 302, 'the 403 of an anonymous navigation goes there too, as before')
})

test('a curl-like client over a real socket sees the challenge and can follow it', async (t) => {
  const app = await build({ basic: { alice: { password: 'pw', tags: 'admin' } }, realm: 'shop', challengeAnonymous: true })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const anonymous = await fetch(`http://127.0.0.1:${port}/plain`)
  t.equal(anonymous.status, 401)
  t.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="shop", charset="UTF-8"')
  const signed = await fetch(`http://127.0.0.1:${port}/plain`, { headers: { authorization: basicHeader('alice', 'pw') } })
  t.equal(signed.status, 200)
  t.same(await signed.json(), { identity: 'alice', tags: ['admin'], backend: 'basic' })
})

test('config.challengeAnonymous: a bad value or no authRule is a boot error naming the route', async (t) => {
  for (const [route, message] of [
    [{ authRule: 'admin', config: { challengeAnonymous: 'yes' } }, 'Invalid config.challengeAnonymous on GET /x: must be true or false'],
    [{ config: { challengeAnonymous: true } }, 'Invalid config.challengeAnonymous on GET /x: needs an authRule on the route (it changes how the rule refuses anonymous callers)']
  ] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    await middlewareChain(app, { middleware: {} }, { components: [errorsPlugin] })
    t.throws(() => app.get('/x', route as never, async () => 'x'), { code: 'GATEHOUSE_CORE_INVALID_ROUTE_OPTION', message })
  }
  const { AuthCore } = await import('@fastify-gatehouse/auth')
  await t.rejects(AuthCore.create({ challengeAnonymous: 'yes' as never }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^challengeAnonymous: must be true or false/ })
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(middlewareChain(app, { authMiddleware: { challengeAnonymous: 1 } }, { components }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /authMiddleware\.challengeAnonymous: expected boolean/ })
})
