import { test, type Test } from 'tap'
import { SignJWT, type JWTPayload } from 'jose'
import { AuthCore, authPlugin } from '@fastify-gatehouse/auth'
import { recipeFromConfig } from '@fastify-gatehouse/core'
import { build } from './helpers/build.js'
import { fakeDateNow } from '../../../test-helpers/clock.js'

// The claim rules people bring from @fastify/jwt (fast-jwt): avatar.claims,
// requiredClaims, matchers on iss/aud/sub/jti/nonce, maxAge, typ.

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const enc = (s: string) => new TextEncoder().encode(s)
const nowS = () => Math.floor(Date.now() / 1000)

async function hs (claims: JWTPayload, header: Record<string, unknown> = {}) {
  return new SignJWT({ exp: nowS() + 60, ...claims }).setProtectedHeader({ alg: 'HS256', ...header }).sign(enc(SECRET))
}

type App = Awaited<ReturnType<typeof build>>

async function call (app: App, token: string, url = '/open') {
  const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` } })
  return { status: res.statusCode, body: res.json(), challenge: res.headers['www-authenticate'] }
}

function refused (t: Test, res: Awaited<ReturnType<typeof call>>, reason: string, what: string): void {
  t.equal(res.status, 401, what)
  t.equal(res.body.code, 'GATEHOUSE_AUTH_INVALID_TOKEN', what)
  t.equal(res.body.message, reason, what)
  t.equal(res.challenge, `Bearer realm="gatehouse", error="invalid_token", error_description="${reason}"`, what)
}

const verifier = (extra: object) => ({ jwt: [{ name: 'v', secret: SECRET, algorithm: 'HS256' as const, ...extra }] })

test('avatar.claims: the verified payload, frozen, shared by the cached avatar, out of toJSON', async (t) => {
  const seen: Array<Readonly<Record<string, unknown>> | null> = []
  const app = await build(verifier({}), (a) => {
    a.get('/claims', async (req) => {
      seen.push(req.scope.auth?.claims ?? null)
      return { claims: req.scope.auth?.claims, json: req.scope.auth }
    })
  })
  t.teardown(() => app.close())
  const exp = nowS() + 60
  const token = await hs({ sub: 'alice', email: 'alice@example.com', profile: { team: ['a', 'b'] }, exp })
  const first = await app.inject({ url: '/claims', headers: { authorization: `Bearer ${token}` } })
  t.equal(first.statusCode, 200)
  t.same(first.json().claims, { sub: 'alice', email: 'alice@example.com', profile: { team: ['a', 'b'] }, exp })
  t.same(first.json().json, { identity: 'alice', tags: [], backend: 'jwt:v' }, 'toJSON leaves the claims out')
  await app.inject({ url: '/claims', headers: { authorization: `Bearer ${token}` } })
  t.ok(Object.isFrozen(seen[0]) && Object.isFrozen((seen[0]!.profile as { team: unknown }).team), 'frozen, nested values too')
  t.equal(seen[1], seen[0], 'the cached avatar carries the same claims object')
  const other = await app.inject({ url: '/claims', headers: { authorization: `Bearer ${await hs({ sub: 'bob' })}` } })
  t.equal(other.json().claims.sub, 'bob')
})

test('requiredClaims: a claim that must be present, any value', async (t) => {
  const app = await build(verifier({ requiredClaims: ['email', 'tenant'] }))
  t.teardown(() => app.close())
  t.equal((await call(app, await hs({ sub: 'alice', email: 'a@x', tenant: null }))).status, 200, 'null counts as present')
  refused(t, await call(app, await hs({ sub: 'alice', email: 'a@x' })), 'The token has no tenant claim', 'tenant missing')
  refused(t, await call(app, await hs({ sub: 'alice', tenant: 't' })), 'The token has no email claim', 'email missing')
})

test('matchers: strings exact, RegExps by test, lists mixing both; aud passes when one element matches', async (t) => {
  const app = await build(verifier({
    issuer: [/^https:\/\/[a-z]+\.idp\.example$/, 'https://legacy.example'],
    audience: ['orders', /^billing-/],
    subject: /^user:/,
    jwtId: [/^[0-9a-f]{8}$/],
    nonce: 'n-0S6_WzA2Mj'
  }))
  t.teardown(() => app.close())
  const good = { iss: 'https://eu.idp.example', aud: 'orders', sub: 'user:alice', jti: '0123abcd', nonce: 'n-0S6_WzA2Mj' }
  const accepted = await call(app, await hs(good))
  t.equal(accepted.status, 200)
  t.equal(accepted.body.caller.identity, 'user:alice')
  t.equal((await call(app, await hs({ ...good, iss: 'https://legacy.example' }))).status, 200, 'an exact string in the list')
  t.equal((await call(app, await hs({ ...good, aud: ['other', 'billing-eu'] }))).status, 200, 'one aud element matching a RegExp')
  const cases: Array<[string, JWTPayload, string]> = [
    ['issuer not matching', { ...good, iss: 'https://eu.idp.example.evil' }, 'The token issuer is not accepted'],
    ['issuer absent', { ...good, iss: undefined }, 'The token issuer is not accepted'],
    ['audience list, none matching', { ...good, aud: ['other', 'xbilling-'] }, 'The token audience is not accepted'],
    ['subject not matching', { ...good, sub: 'service:x' }, 'The token subject is not accepted'],
    ['jti not matching', { ...good, jti: '0123abcz' }, 'The token ID is not accepted'],
    ['jti absent', { ...good, jti: undefined }, 'The token ID is not accepted'],
    ['nonce of another case', { ...good, nonce: 'N-0S6_WzA2Mj' }, 'The token nonce is not accepted'],
    ['nonce not a string', { ...good, nonce: 7 } as JWTPayload, 'The token nonce is not accepted']
  ]
  for (const [what, claims, reason] of cases) refused(t, await call(app, await hs(claims)), reason, what)
})

test('maxAge counts seconds from iat (then required), with clockTolerance; the cache never outlives it', async (t) => {
  const clock = fakeDateNow(t)
  const app = await build(verifier({ maxAge: 60, clockTolerance: 0, requireExp: false }))
  t.teardown(() => app.close())
  const fresh = await hs({ sub: 'alice', iat: nowS() - 30, exp: undefined })
  t.equal((await call(app, fresh)).status, 200, '30 s old')
  refused(t, await call(app, await hs({ sub: 'alice', iat: nowS() - 61 })), 'The token is too old', '61 s old')
  refused(t, await call(app, await hs({ sub: 'alice' })), 'The token has no iat claim', 'no iat')
  clock.advance(31_000)
  refused(t, await call(app, fresh), 'The token is too old', 'the cached token, once past iat + maxAge')
})

test('typ: compared case-insensitively, with or without application/; absent is refused', async (t) => {
  const app = await build(verifier({ typ: 'at+jwt' }))
  t.teardown(() => app.close())
  for (const typ of ['at+jwt', 'AT+JWT', 'application/at+jwt', 'Application/At+JWT']) {
    t.equal((await call(app, await hs({ sub: 'alice' }, { typ }))).status, 200, typ)
  }
  refused(t, await call(app, await hs({ sub: 'alice' }, { typ: 'JWT' })), 'The token type is not accepted', 'typ JWT')
  refused(t, await call(app, await hs({ sub: 'alice' })), 'The token type is not accepted', 'no typ')
  refused(t, await call(app, await hs({ sub: 'alice' }, { typ: 'text/at+jwt' })), 'The token type is not accepted', 'another media type')
  const either = await build(verifier({ typ: ['application/at+jwt', 'JWT'] }))
  t.teardown(() => either.close())
  t.equal((await call(either, await hs({ sub: 'alice' }, { typ: 'jwt' }))).status, 200, 'a list, written with application/ or not')
  t.equal((await call(either, await hs({ sub: 'alice' }, { typ: 'at+JWT' }))).status, 200)
})

test('bad claim rules fail at boot naming jwt.<name>.<option>', async (t) => {
  const cases: Array<[object, string]> = [
    [{ subject: /^user:/g }, 'jwt.v.subject: /^user:/g: the g and y flags make a RegExp stateful; drop them'],
    [{ audience: ['api', /api/y] }, 'jwt.v.audience: /api/y: the g and y flags make a RegExp stateful; drop them'],
    [{ issuer: [] }, 'jwt.v.issuer: must be a string, a RegExp or a non-empty list of them'],
    [{ jwtId: 42 }, 'jwt.v.jwtId: must be a string, a RegExp or a non-empty list of them (an empty string matches nothing)'],
    [{ nonce: '' }, 'jwt.v.nonce: must be a string, a RegExp or a non-empty list of them (an empty string matches nothing)'],
    [{ requiredClaims: 'email' }, 'jwt.v.requiredClaims: must be a non-empty list of claim names of printable ASCII characters'],
    [{ requiredClaims: ['e\nmail'] }, 'jwt.v.requiredClaims: must be a non-empty list of claim names of printable ASCII characters'],
    [{ typ: 'at jwt' }, 'jwt.v.typ: must be a media type such as "at+jwt" (or "application/at+jwt"), or a non-empty list of them'],
    [{ typ: [] }, 'jwt.v.typ: must be a media type such as "at+jwt" (or "application/at+jwt"), or a non-empty list of them'],
    [{ cacheTtl: -1 }, 'jwt.v.cacheTtl: must be from 0 to 86400 seconds'],
    [{ isRevoked: 'yes' }, 'jwt.v.isRevoked: must be a function (claims, request) => boolean']
  ]
  for (const [options, message] of cases) {
    await t.rejects(AuthCore.create(verifier(options) as never), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message }, message)
  }
})

test('config files: the new keys in snake_case; RegExps cannot be spelled there, strings can', async (t) => {
  const file = (extra: object) => ({ auth_middleware: { jwt_cookie: 'access_token', jwt: [{ name: 'idp', secret: SECRET, algorithm: 'HS256', ...extra }] } })
  const recipe = recipeFromConfig(file({ required_claims: ['email'], subject: ['alice', 'bob'], jwt_id: 'x', nonce: 'n', typ: 'at+jwt', cache_ttl: 30, issuer: 'https://idp', audience: ['a', 'b'] }), { components: [authPlugin] })
  t.same(recipe.authMiddleware, {
    jwtCookie: 'access_token',
    jwt: [{ name: 'idp', secret: SECRET, algorithm: 'HS256', requiredClaims: ['email'], subject: ['alice', 'bob'], jwtId: 'x', nonce: 'n', typ: 'at+jwt', cacheTtl: 30, issuer: 'https://idp', audience: ['a', 'b'] }]
  })
  t.throws(() => recipeFromConfig(file({ cache_ttl: '30' }), { components: [authPlugin] }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'auth_middleware.jwt[0].cache_ttl: expected number' })
  t.throws(() => recipeFromConfig(file({ required_claims: [] }), { components: [authPlugin] }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^auth_middleware\.jwt\[0\]\.required_claims: / })
  t.throws(() => recipeFromConfig(file({ jwtId: 'x' }), { components: [authPlugin] }), { message: 'auth_middleware.jwt[0].jwtId: unknown option (config files use snake_case: jwt_id)' })
  // A matcher of the wrong type is named when the verifier is built.
  await t.rejects(AuthCore.create({ jwt: [{ name: 'idp', secret: SECRET, algorithm: 'HS256', subject: [{ pattern: '^a' } as never] }] }),
    { message: 'jwt.idp.subject: must be a string, a RegExp or a non-empty list of them (an empty string matches nothing)' })
})

test('claims JSON cannot hold, or nested too deep, are a 401, never a 500', async (t) => {
  const { createHmac } = await import('node:crypto')
  const secret = 'an-hs256-secret-that-is-long-enough-0123456789'
  const b64 = (s: string): string => Buffer.from(s).toString('base64url')
  const sign = (payload: string): string => {
    const input = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(payload)}`
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
  }
  const exp = Math.floor(Date.now() / 1000) + 600
  const core = await AuthCore.create({ jwt: [{ name: 'idp', secret, algorithm: 'HS256' }] })
  const deep = '['.repeat(40) + ']'.repeat(40)
  for (const payload of [`{"sub":"a","exp":${exp},"n":1e400}`, `{"sub":"a","exp":${exp},"d":${deep}}`]) {
    t.throws(() => core.authenticate(`Bearer ${sign(payload)}`), { statusCode: 401, code: 'GATEHOUSE_AUTH_INVALID_TOKEN', message: 'The token claims are not plain JSON data' })
  }
  t.equal((core.authenticate(`Bearer ${sign(`{"sub":"a","exp":${exp},"n":1}`)}`) as { identity: string }).identity, 'a')
})
