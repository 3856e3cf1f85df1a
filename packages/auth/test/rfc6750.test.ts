import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { basicHeader, build, components } from './helpers/build.js'

const options = { bearer: { deploybot: { token: 'abc.DEF-123_~+/=', tags: 'ops' }, reader: { token: 'r3ad3r-token', tags: ['reader'] } } }

test('bearer: a static token authenticates as the entry name', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/me', headers: { authorization: 'Bearer abc.DEF-123_~+/=' } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { identity: 'deploybot', tags: ['ops'], backend: 'bearer' })
  const spaced = await app.inject({ url: '/me', headers: { authorization: 'bearer    r3ad3r-token  ' } })
  t.same(spaced.json(), { identity: 'reader', tags: ['reader'], backend: 'bearer' })
})

test('rfc6750 §3: an invalid token gets error="invalid_token"', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/open', headers: { authorization: 'Bearer not-a-token' } })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], 'Bearer realm="gatehouse", error="invalid_token", error_description="The token is not valid"')
  t.same(res.json(), { statusCode: 401, code: 'GATEHOUSE_AUTH_INVALID_TOKEN', error: 'Unauthorized', message: 'The token is not valid' })
  const prefix = await app.inject({ url: '/open', headers: { authorization: 'Bearer abc.DEF-123_~+/' } })
  t.equal(prefix.statusCode, 401, 'a prefix of a token is not the token')
})

test('rfc6750 §3.1: a malformed bearer request is a 400 with error="invalid_request"', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  const cases: Array<[string, string]> = [
    ['Bearer ', 'the Authorization header has no credentials'],
    ['Bearer', 'the Authorization header has no credentials'],
    ['bearer    ', 'the Authorization header has no credentials'],
    ['Bearer a b', 'the bearer token is not a b64token'],
    ['Bearer tök', 'the bearer token is not a b64token'],
    ['Bearer ab=c', 'the bearer token is not a b64token'],
    ['Bearer "quoted"', 'the bearer token is not a b64token'],
    ['Bearer r3ad3r-token\t', 'the Authorization header contains control characters'],
    ['Bearer ' + 'a'.repeat(9000), 'the Authorization header is too long']
  ]
  for (const [authorization, reason] of cases) {
    const name = JSON.stringify(authorization.slice(0, 20))
    const res = await app.inject({ url: '/open', headers: { authorization } })
    t.equal(res.statusCode, 400, `${name}: 400, not 401 (the client is broken, not unauthenticated)`)
    const message = `Malformed bearer request: ${reason}`
    t.same(res.json(), { statusCode: 400, code: 'GATEHOUSE_AUTH_INVALID_REQUEST', error: 'Bad Request', message }, name)
    t.equal(res.headers['www-authenticate'], `Bearer realm="gatehouse", error="invalid_request", error_description="${message}"`, name)
  }
})

test('rfc6750 §3.1: the 400 stands with the errors component\'s login negotiation on, for every client', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, { middleware: { errors: { login: true, loginPage: '/login' } }, authMiddleware: options }, { components })
  app.get('/me', { authRule: 'reader' }, async (req) => req.scope.auth)
  await app.ready()
  for (const accept of ['text/html', 'application/json', '*/*']) {
    const res = await app.inject({ url: '/me', headers: { authorization: 'Bearer a b', accept } })
    t.equal(res.statusCode, 400, `${accept}: not turned into a sign-in redirect`)
    t.equal(res.headers.location, undefined)
    t.match(res.headers['www-authenticate'], /^Bearer realm="gatehouse", error="invalid_request"/)
    t.notMatch(res.body, /login_url|Sign in/, `${accept}: no login link`)
  }
})

test('rfc6750 §3.1 over a real socket', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const bad = await fetch(`${base}/me`, { headers: { authorization: 'Bearer a b' } })
  t.equal(bad.status, 400)
  t.equal(bad.headers.get('www-authenticate'), 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the bearer token is not a b64token"')
  t.same(await bad.json(), { statusCode: 400, code: 'GATEHOUSE_AUTH_INVALID_REQUEST', error: 'Bad Request', message: 'Malformed bearer request: the bearer token is not a b64token' })
  const invalid = await fetch(`${base}/me`, { headers: { authorization: 'Bearer not-a-token' } })
  t.equal(invalid.status, 401, 'a well-formed unknown token is still invalid_token')
  await invalid.arrayBuffer()
  const ok = await fetch(`${base}/me`, { headers: { authorization: 'Bearer r3ad3r-token' } })
  t.equal(ok.status, 200)
  await ok.arrayBuffer()
})

test('other schemes keep their 401 for a malformed header; without bearer configured, Bearer is unsupported', async (t) => {
  const basicOnly = await build({ basic: { alice: { password: 'pw' } } })
  t.teardown(() => basicOnly.close())
  const bearer = await basicOnly.inject({ url: '/open', headers: { authorization: 'Bearer a b' } })
  t.equal(bearer.statusCode, 401)
  t.equal(bearer.json().code, 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME')
  const basic = await basicOnly.inject({ url: '/open', headers: { authorization: 'Basic ' } })
  t.equal(basic.statusCode, 401)
  t.equal(basic.json().code, 'GATEHOUSE_AUTH_BAD_HEADER')
})

test('an unsupported scheme lists every accepted scheme', async (t) => {
  const app = await build({ ...options, basic: { alice: { password: 'pw' } }, realm: 'shop' })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/open', headers: { authorization: 'Digest username="x"' } })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME')
  t.same(res.headers['www-authenticate'], ['Basic realm="shop", charset="UTF-8"', 'Bearer realm="shop"'])
  const basic = await app.inject({ url: '/me', headers: { authorization: basicHeader('alice', 'pw') } })
  t.equal(basic.statusCode, 403, 'alice has no tag: authenticated but refused')
})

test('a header without a scheme is a 401 with every challenge', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  const none = await app.inject({ url: '/open', headers: { authorization: '' } })
  t.equal(none.statusCode, 401)
  t.equal(none.json().code, 'GATEHOUSE_AUTH_BAD_HEADER')
  const control = await app.inject({ url: '/open', headers: { authorization: 'Token\u0001x' } })
  t.equal(control.statusCode, 401)
  t.equal(control.json().message, 'Malformed Authorization header: the Authorization header contains control characters')
})

test('bad bearer entries fail at boot naming the entry', async (t) => {
  const { AuthCore } = await import('@fastify-gatehouse/auth')
  await t.rejects(AuthCore.create({ bearer: { ci: { token: '' } } }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'bearer.ci: token is required' })
  await t.rejects(AuthCore.create({ bearer: { ci: { token: 'a b' } } }), { message: /^bearer\.ci: token must be RFC 6750/ })
  await t.rejects(AuthCore.create({ bearer: { ci: { token: 'gak_0123456789abcdef_xxxxxxxxxxxxxxxxxxxxxxx' } } }), { message: /^bearer\.ci: tokens starting with gak_ are API keys/ })
  await t.rejects(AuthCore.create({ bearer: { a: { token: 'same' }, b: { token: 'same' } } }), { message: 'bearer.b: the same token is configured twice' })
  const { default: Fastify } = await import('fastify')
  const { middlewareChain } = await import('@fastify-gatehouse/core')
  const app = Fastify()
  await t.rejects(middlewareChain(app, { authMiddleware: { bearer: { ci: { tags: 'x' } } } }, { components }),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'authMiddleware.bearer.ci.token: is required' })
  await app.close()
})

test('the exact spelling and its variants are answered alike', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  for (const authorization of ['Bearer r3ad3r-token', 'Bearer  r3ad3r-token', 'Bearer r3ad3r-token  ', 'BEARER r3ad3r-token', ' Bearer r3ad3r-token']) {
    const res = await app.inject({ url: '/me', headers: { authorization } })
    t.equal(res.statusCode, 200, JSON.stringify(authorization))
  }
  for (const authorization of ['Bearer r3ad3r-token\t', 'Bearer r3ad3r-tok\u0000en']) {
    t.equal((await app.inject({ url: '/me', headers: { authorization } })).statusCode, 400, JSON.stringify(authorization))
  }
})
