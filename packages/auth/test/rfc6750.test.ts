import { test } from 'tap'
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

test('rfc6750 §3: a malformed request gets error="invalid_request"', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  for (const authorization of ['Bearer a b', 'Bearer tök', 'Bearer ab=c', 'Bearer "quoted"']) {
    const res = await app.inject({ url: '/open', headers: { authorization } })
    t.equal(res.statusCode, 401, authorization)
    t.equal(res.json().code, 'GATEHOUSE_AUTH_BAD_HEADER')
    t.match(res.headers['www-authenticate'], /^Bearer realm="gatehouse", error="invalid_request"/)
  }
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

test('oversized and control-character headers are 401s', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  const long = await app.inject({ url: '/open', headers: { authorization: 'Bearer ' + 'a'.repeat(9000) } })
  t.equal(long.statusCode, 401)
  t.equal(long.json().message, 'Malformed Authorization header: the Authorization header is too long')
  const none = await app.inject({ url: '/open', headers: { authorization: '' } })
  t.equal(none.statusCode, 401)
  t.equal(none.json().code, 'GATEHOUSE_AUTH_BAD_HEADER')
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
    t.equal((await app.inject({ url: '/me', headers: { authorization } })).statusCode, 401, JSON.stringify(authorization))
  }
})
