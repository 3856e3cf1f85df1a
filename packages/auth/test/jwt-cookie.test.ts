import { test } from 'tap'
import Fastify from 'fastify'
import { SignJWT, type JWTPayload } from 'jose'
import { AuthCore, authPlugin } from '@fastify-gatehouse/auth'
import { credentialCookies } from '@fastify-gatehouse/core'
import { build } from './helpers/build.js'
import { fakeDateNow } from '../../../test-helpers/clock.js'

// jwtCookie: a JWT from a cookie, read only without an Authorization header.

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const enc = (s: string) => new TextEncoder().encode(s)
const nowS = () => Math.floor(Date.now() / 1000)
const hs = async (claims: JWTPayload) => new SignJWT({ exp: nowS() + 60, ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(enc(SECRET))
const options = { jwtCookie: 'access_token', jwt: [{ name: 'web', secret: SECRET, algorithm: 'HS256' as const, tagsClaim: 'tags' }], bearer: { ci: { token: 'ci-static-token', tags: 'ops' } } }

type App = Awaited<ReturnType<typeof build>>

async function get (app: App, url: string, headers: Record<string, string>) {
  const res = await app.inject({ url, headers })
  return { status: res.statusCode, body: res.json(), challenge: res.headers['www-authenticate'] }
}

test('the cookie authenticates a request without Authorization; the header wins when both are sent', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  const token = await hs({ sub: 'alice', tags: ['reader'] })
  const viaCookie = await get(app, '/me', { cookie: `theme=dark; access_token=${token}; other=1` })
  t.equal(viaCookie.status, 200)
  t.same(viaCookie.body, { identity: 'alice', tags: ['reader'], backend: 'jwt:web' })
  t.equal((await get(app, '/open', { cookie: '  access_token =  ' + token + '  ' })).body.caller.identity, 'alice', 'spaces around the pair, as @fastify/cookie reads them')
  const both = await get(app, '/open', { cookie: 'access_token=garbage.token.here', authorization: 'Bearer ci-static-token' })
  t.equal(both.status, 200, 'with an Authorization header the cookie is not read, even an invalid one')
  t.same(both.body.caller, { identity: 'ci', tags: ['ops'], backend: 'bearer' })
  t.same((await get(app, '/open', { cookie: 'access_token=' })).body.caller, null, 'an empty cookie is no token')
  t.same((await get(app, '/open', { cookie: 'session_id=abc' })).body.caller, null, 'another cookie: anonymous')
  t.equal((await get(app, '/me', {})).status, 403, 'no cookie: anonymous, the rule refuses')
})

test('a cookie token that is refused is a 401 like a header one; a static token or API key in the cookie is no JWT', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  const token = await hs({ sub: 'alice' })
  const cases: Array<[string, string]> = [
    [`${token.slice(0, -4)}AAAA`, 'The token signature is invalid'],
    ['ci-static-token', 'The token is not valid'],
    ['gak_0123456789abcdef_secretsecretsecret', 'The token is not valid'],
    ['a b', 'The token is malformed'],
    [await hs({ name: 'no sub' }), 'The token has no sub claim']
  ]
  for (const [value, reason] of cases) {
    for (const url of ['/open', '/me']) {
      const res = await get(app, url, { cookie: `access_token=${encodeURIComponent(value)}` })
      t.equal(res.status, 401, `${reason} on ${url}`)
      t.equal(res.body.code, 'GATEHOUSE_AUTH_INVALID_TOKEN')
      t.equal(res.body.message, reason)
      t.equal(res.challenge, `Bearer realm="gatehouse", error="invalid_token", error_description="${reason}"`)
    }
  }
})

test('an expired cookie token: anonymous on a route that needs no caller, a 401 on one that does', async (t) => {
  const clock = fakeDateNow(t)
  const app = await build(options, (a) => {
    a.get('/fresh', { fresh: 600 }, async () => ({ ok: true }))
    a.post('/open', async (req) => ({ caller: req.scope.auth }))
  })
  t.teardown(() => app.close())
  const token = await hs({ sub: 'alice', tags: ['reader'], exp: nowS() + 60 })
  t.equal((await get(app, '/me', { cookie: `access_token=${token}` })).status, 200, 'valid: cached')
  clock.advance(120_000)
  const open = await get(app, '/open', { cookie: `access_token=${token}` })
  t.equal(open.status, 200, 'an open page still opens')
  t.same(open.body.caller, null, 'as an anonymous caller')
  t.equal((await app.inject({ method: 'GET', url: '/nowhere', headers: { cookie: `access_token=${token}` } })).statusCode, 404, 'a 404, not a 401')
  for (const url of ['/me', '/fresh']) {
    const res = await get(app, url, { cookie: `access_token=${token}` })
    t.equal(res.status, 401, `${url} needs a caller: the token's refusal`)
    t.equal(res.body.code, 'GATEHOUSE_AUTH_INVALID_TOKEN')
    t.equal(res.challenge, 'Bearer realm="gatehouse", error="invalid_token", error_description="The token has expired"')
  }
  const header = await get(app, '/open', { authorization: `Bearer ${token}` })
  t.equal(header.status, 401, 'in the Authorization header an expired token is refused everywhere')
})

test('auth alone declares the cookie as a credential cookie (for csrf), and reads the header itself', async (t) => {
  const app = Fastify()
  await app.register(authPlugin, options)
  app.get('/who', async (req) => ({ caller: req.scope.auth?.identity ?? null }))
  t.teardown(() => app.close())
  t.notOk(app.hasDecorator('parseCookie'), 'no cookie plugin')
  const token = await hs({ sub: 'alice' })
  t.same((await app.inject({ url: '/who', headers: { cookie: `a=1;access_token=${token};access_token=other` } })).json(), { caller: 'alice' }, 'the first of a name wins')
  t.same((await app.inject({ url: '/who', headers: { cookie: 'access_token' } })).json(), { caller: null }, 'a pair without =')
  t.ok(credentialCookies(app).has('access_token'))
})

test('jwtCookie without a component checking credential cookies (csrf): one warning at ready; none with csrf', async (t) => {
  const lines: Array<{ level: number, msg: string }> = []
  const stream = { write: (line: string) => { lines.push(JSON.parse(line)) } }
  const app = Fastify({ logger: { level: 'warn', stream } })
  await app.register(authPlugin, options)
  await app.ready()
  t.teardown(() => app.close())
  const warnings = lines.filter((l) => l.msg.includes('jwtCookie'))
  t.equal(warnings.length, 1)
  t.equal(warnings[0]!.level, 40)
  t.match(warnings[0]!.msg, /jwtCookie "access_token" .*register the csrf component/)
  t.notMatch(JSON.stringify(lines), SECRET, 'nothing secret in it')

  lines.length = 0
  const guarded = Fastify({ logger: { level: 'warn', stream } })
  // What csrf does at registration: it asks for the credential cookies it checks.
  await guarded.register(async (child) => { credentialCookies(child) })
  await guarded.register(authPlugin, options)
  await guarded.ready()
  t.teardown(() => guarded.close())
  t.same(lines.filter((l) => l.msg.includes('jwtCookie')), [], 'a checker registered: no warning')
})

test('jwtCookie: boot checks', async (t) => {
  await t.rejects(AuthCore.create({ jwtCookie: 'access_token' }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'jwtCookie: names the cookie of a JWT: configure a jwt verifier too' })
  await t.rejects(AuthCore.create({ ...options, jwtCookie: 'a b' }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'jwtCookie: must be a cookie name (an RFC 9110 token)' })
  await t.rejects(build({ ...options, jwtCookie: 'a;b' }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /jwtCookie/ })
})
