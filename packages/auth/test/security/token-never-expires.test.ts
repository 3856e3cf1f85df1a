// Issue 13, item 10: a JWT without `exp` was accepted forever, and an `iat`
// in the future was not checked. `exp` is now required unless a verifier
// sets `requireExp: false`; `maxAge` bounds a token's age from its `iat`;
// an `iat` ahead of the clock (beyond the tolerance) is refused.
import { test, type Test } from 'tap'
import { createHmac } from 'node:crypto'
import { AuthCore, type AuthOptions } from '@fastify-gatehouse/auth'
import { build } from '../helpers/build.js'

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const nowS = () => Math.floor(Date.now() / 1000)

// Claims exactly as given: no exp is added.
function hs256 (claims: object): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`
}

async function app (verifier: Record<string, unknown> = {}) {
  const server = await build({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', ...verifier }] } as AuthOptions)
  const call = async (claims: object) => {
    const res = await server.inject({ url: '/open', headers: { authorization: `Bearer ${hs256(claims)}` } })
    return { status: res.statusCode, body: res.json(), challenge: res.headers['www-authenticate'] }
  }
  return { server, call }
}

async function refused (t: Test, call: Awaited<ReturnType<typeof app>>['call'], claims: object, reason: string, what: string) {
  const res = await call(claims)
  t.equal(res.status, 401, what)
  t.equal(res.body.code, 'GATEHOUSE_AUTH_INVALID_TOKEN', what)
  t.equal(res.body.message, reason, what)
  t.equal(res.challenge, `Bearer realm="gatehouse", error="invalid_token", error_description="${reason}"`, what)
}

test('by default a token without exp is refused; requireExp: false accepts it', async (t) => {
  const strict = await app()
  t.teardown(() => strict.server.close())
  await refused(t, strict.call, { sub: 'alice' }, 'The token has no exp claim', 'no exp')
  await refused(t, strict.call, { sub: 'alice', iat: nowS() }, 'The token has no exp claim', 'iat alone is not an expiry')
  t.equal((await strict.call({ sub: 'alice', exp: nowS() + 60 })).status, 200, 'with exp')

  const lax = await app({ requireExp: false })
  t.teardown(() => lax.server.close())
  t.equal((await lax.call({ sub: 'alice' })).status, 200, 'requireExp: false')
  await refused(t, lax.call, { sub: 'alice', exp: nowS() - 60 }, 'The token has expired', 'an exp that is there is still checked')
})

test('an iat in the future beyond the clock tolerance is refused', async (t) => {
  // Margins of 3 and 60 s around the default tolerance of 5 s.
  const { server, call } = await app()
  t.teardown(() => server.close())
  await refused(t, call, { sub: 'alice', exp: nowS() + 600, iat: nowS() + 60 }, 'The token was issued in the future', 'iat 60 s ahead')
  t.equal((await call({ sub: 'alice', exp: nowS() + 600, iat: nowS() + 3 })).status, 200, 'iat 3 s ahead: within the tolerance')
  t.equal((await call({ sub: 'alice', exp: nowS() + 600, iat: nowS() - 3600 })).status, 200, 'an old iat without maxAge')
})

test('exp, nbf and iat must be numbers', async (t) => {
  const { server, call } = await app({ requireExp: false })
  t.teardown(() => server.close())
  const later = nowS() + 60
  for (const claims of [{ exp: String(later) }, { exp: null }, { exp: true }, { nbf: '0' }, { iat: String(nowS()) }, { iat: [nowS()] }, { iat: { t: 1 } }]) {
    await refused(t, call, { sub: 'alice', ...claims }, 'The token claims are invalid', JSON.stringify(claims))
  }
})

test('maxAge: seconds since iat, which it requires', async (t) => {
  const { server, call } = await app({ maxAge: 300 })
  t.teardown(() => server.close())
  const exp = nowS() + 3600
  await refused(t, call, { sub: 'alice', exp }, 'The token has no iat claim', 'no iat')
  await refused(t, call, { sub: 'alice', exp, iat: nowS() - 600 }, 'The token is too old', 'iat 600 s ago')
  t.equal((await call({ sub: 'alice', exp, iat: nowS() - 60 })).status, 200, 'iat 60 s ago')

  const noExp = await app({ maxAge: 300, requireExp: false })
  t.teardown(() => noExp.server.close())
  t.equal((await noExp.call({ sub: 'alice', iat: nowS() })).status, 200, 'maxAge instead of exp')
  await refused(t, noExp.call, { sub: 'alice', iat: nowS() - 600 }, 'The token is too old', 'maxAge instead of exp, too old')
})

test('a verified token leaves the cache at iat + maxAge, before its exp', async (t) => {
  let now = Date.now()
  const core = await AuthCore.create({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', maxAge: 10, clockTolerance: 0 }], now: () => now })
  const token = hs256({ sub: 'alice', iat: Math.floor(now / 1000), exp: Math.floor(now / 1000) + 3600 })
  t.equal((core.authenticate(`Bearer ${token}`) as { identity: string }).identity, 'alice')
  now += 5_000
  t.equal((core.authenticate(`Bearer ${token}`) as { identity: string }).identity, 'alice', 'still young')
  now += 6_000
  t.throws(() => core.authenticate(`Bearer ${token}`), { code: 'GATEHOUSE_AUTH_INVALID_TOKEN', message: 'The token is too old' })
})

test('bad exp and age options fail at boot naming the verifier', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ maxAge: 0 }, 'jwt.v: maxAge must be a positive number of seconds'],
    [{ maxAge: -5 }, 'jwt.v: maxAge must be a positive number of seconds'],
    [{ maxAge: '1h' }, 'jwt.v: maxAge must be a positive number of seconds'],
    [{ maxAge: Number.POSITIVE_INFINITY }, 'jwt.v: maxAge must be a positive number of seconds'],
    [{ requireExp: 'no' }, 'jwt.v: requireExp must be true or false']
  ]
  for (const [options, message] of cases) {
    await t.rejects(AuthCore.create({ jwt: [{ name: 'v', secret: SECRET, algorithm: 'HS256', ...options } as never] }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message }, message)
  }
})
