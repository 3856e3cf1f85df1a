import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { SignJWT } from 'jose'
import { Avatar, middlewareChain, setDefaultAuthRule } from '@fastify-gatehouse/core'
import { MemoryApiKeyStore, type AuthOptions } from '@fastify-gatehouse/auth'
import { basicHeader, components } from './helpers/build.js'

// Issue 25 item 13: `*` is "any authenticated caller" (what @fastify/jwt's
// jwtVerify() or @fastify/bearer-auth's hook meant), D-RULES-12; and
// setDefaultAuthRule protects every route of a plugin scope, D-RULES-13.

const SECRET = 'a-jwt-secret-of-at-least-thirty-two-bytes!'
const BASIC = 'Basic realm="gatehouse", charset="UTF-8"'
const BEARER = 'Bearer realm="gatehouse"'

async function build (extra: Partial<AuthOptions> = {}): Promise<{ app: FastifyInstance, key: string }> {
  const apiKeys = new MemoryApiKeyStore()
  const { key } = await apiKeys.issue({ label: 'ci-key', tags: [] })
  const app = Fastify()
  await middlewareChain(app, {
    authMiddleware: {
      basic: { alice: { password: 'alice-pw', tags: 'admin' }, bob: { password: 'bob-pw', tags: 'suspended' } },
      bearer: { ci: { token: 'ci-static-token' } },
      jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256' }],
      apiKeys,
      ...extra
    } as Record<string, unknown>
  }, { components })
  // A session stand-in (the session component fills scope.auth after auth the same way, backend `session`).
  app.addHook('onRequest', async (request) => {
    if (request.headers.cookie === 'session_id=carol') request.scope.auth = new Avatar('carol', { backend: 'session' })
  })
  app.get('/open', async () => 'open')
  app.get('/any', { authRule: '*' }, async (req) => ({ identity: req.scope.auth?.identity, backend: req.scope.auth?.backend }))
  app.get('/any-challenged', { authRule: '*', config: { challengeAnonymous: true } }, async () => 'ok')
  app.get('/any-but-suspended', { authRule: '* & !suspended' }, async () => 'ok')
  app.get('/admin-or-any', { authRule: 'admin | *' }, async () => 'ok')
  await app.register(async function protectedScope (scope) {
    setDefaultAuthRule(scope, '*')
    scope.get('/inside', async (req) => ({ identity: req.scope.auth?.identity }))
    scope.get('/inside-admin', { authRule: 'admin' }, async () => 'admin')
    scope.post('/inside-post', async () => 'posted')
    await scope.register(async (nested) => { nested.get('/nested', async () => 'nested') })
  }, { prefix: '/scope' })
  app.get('/outside', async () => 'outside')
  await app.ready()
  return { app, key }
}

test('"*" admits a signed-in caller of every backend', async (t) => {
  const { app, key } = await build()
  t.teardown(() => app.close())
  const jwt = await new SignJWT({ sub: 'dave', exp: Math.floor(Date.now() / 1000) + 600 }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET))
  const callers: Array<[Record<string, string>, string, string]> = [
    [{ authorization: basicHeader('alice', 'alice-pw') }, 'alice', 'basic'],
    [{ authorization: 'Bearer ci-static-token' }, 'ci', 'bearer'],
    [{ authorization: `Bearer ${jwt}` }, 'dave', 'jwt:main'],
    [{ authorization: `Bearer ${key}` }, 'ci-key', 'api_key'],
    [{ cookie: 'session_id=carol' }, 'carol', 'session']
  ]
  for (const [headers, identity, backend] of callers) {
    const res = await app.inject({ url: '/any', headers })
    t.equal(res.statusCode, 200, backend)
    t.same(res.json(), { identity, backend }, `${backend}: no tag needed`)
  }
})

test('"*": an anonymous caller gets 403 naming the schemes, or 401 with the challenges', async (t) => {
  for (const pluginDefault of [false, true]) {
    const { app } = await build(pluginDefault ? { challengeAnonymous: true } : {})
    t.teardown(() => app.close())
    for (const [url, challenged] of [['/any', pluginDefault], ['/any-challenged', true]] as const) {
      const res = await app.inject(url)
      const label = `challengeAnonymous ${String(pluginDefault)}, ${url}`
      if (challenged) {
        t.equal(res.statusCode, 401, label)
        t.same(res.headers['www-authenticate'], [BASIC, BEARER], label)
        t.same(res.json(), { statusCode: 401, code: 'GATEHOUSE_CORE_UNAUTHENTICATED', error: 'Unauthorized', message: 'Sign in with Basic or Bearer credentials' }, label)
      } else {
        t.equal(res.statusCode, 403, label)
        t.equal(res.headers['www-authenticate'], undefined, label)
        t.same(res.json(), { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message: 'Sign in with Basic or Bearer credentials' }, label)
      }
    }
    t.equal((await app.inject('/open')).statusCode, 200, 'an open route stays open')
  }
})

test('"*" combined with &, | and !', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const alice = { authorization: basicHeader('alice', 'alice-pw') }
  const bob = { authorization: basicHeader('bob', 'bob-pw') }
  t.equal((await app.inject({ url: '/any-but-suspended', headers: alice })).statusCode, 200)
  const refused = await app.inject({ url: '/any-but-suspended', headers: bob })
  t.equal(refused.statusCode, 403, 'signed in, but suspended')
  t.same(refused.json(), { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message: 'Insufficient permissions for this route' })
  t.equal((await app.inject({ url: '/any-but-suspended' })).statusCode, 403, 'anonymous')
  t.equal((await app.inject({ url: '/admin-or-any', headers: bob })).statusCode, 200)
  t.equal((await app.inject({ url: '/admin-or-any' })).statusCode, 403, 'anonymous never satisfies "admin | *"')
})

test('setDefaultAuthRule: every route of the scope is protected, its own rule wins, routes outside are not', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const bob = { authorization: basicHeader('bob', 'bob-pw') }
  for (const [method, url] of [['GET', '/scope/inside'], ['HEAD', '/scope/inside'], ['POST', '/scope/inside-post'], ['GET', '/scope/nested']] as const) {
    const anonymous = await app.inject({ method, url })
    t.equal(anonymous.statusCode, 403, `${method} ${url}: anonymous refused`)
    if (method !== 'HEAD') t.equal(anonymous.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
    t.equal((await app.inject({ method, url, headers: bob })).statusCode, 200, `${method} ${url}: any signed-in caller`)
  }
  t.equal((await app.inject({ url: '/scope/inside-admin', headers: bob })).statusCode, 403, 'a route\'s own rule wins')
  t.equal((await app.inject({ url: '/scope/inside-admin', headers: { authorization: basicHeader('alice', 'alice-pw') } })).statusCode, 200)
  t.equal((await app.inject('/outside')).body, 'outside', 'a route outside the scope stays open')
  t.equal((await app.inject('/open')).body, 'open')
})

test('setDefaultAuthRule refuses a bad rule, a second default, routes declared before it, and a scope no chain enforces', async (t) => {
  const app = Fastify()
  await middlewareChain(app, { authMiddleware: { bearer: { ci: { token: 'ci-static-token' } } } }, { components })
  await app.register(async (scope) => {
    t.throws(() => setDefaultAuthRule(scope, 'admin &'), { code: 'GATEHOUSE_CORE_INVALID_AUTH_RULE', message: /Invalid authRule "admin &" on the scope "\/a": expected a tag/ })
    setDefaultAuthRule(scope, 'admin')
    t.throws(() => setDefaultAuthRule(scope, 'ops'), { code: 'GATEHOUSE_CORE_INVALID_AUTH_RULE', message: /it has a default rule already \("admin"\)/ })
  }, { prefix: '/a' })
  await app.register(async (scope) => {
    scope.get('/early', async () => 'early')
    t.throws(() => setDefaultAuthRule(scope, '*'), { code: 'GATEHOUSE_CORE_INVALID_AUTH_RULE', message: /set the default before declaring routes; already declared: GET \/b\/early/ })
  }, { prefix: '/b' })
  await app.ready()
  await app.close()

  const bare = Fastify()
  await bare.register(async (scope) => {
    setDefaultAuthRule(scope, '*')
    t.throws(() => scope.get('/unguarded', async () => 'open'), { code: 'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE', message: /The default authRule "\*" of the scope "\/c" cannot be enforced on GET \/c\/unguarded/ })
  }, { prefix: '/c' })
  await bare.ready()
  t.equal((await bare.inject('/c/unguarded')).statusCode, 404, 'the route was never added')
  await bare.close()
})
