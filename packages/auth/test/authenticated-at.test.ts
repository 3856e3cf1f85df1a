// When each backend's caller last proved who they are (Avatar.authenticatedAt),
// and what a route's `fresh` makes of it: Basic sends the password with every
// request (now); a JWT says so in `auth_time`, or says nothing; API keys and
// static bearer tokens never do.
import { test } from 'tap'
import { SignJWT, type JWTPayload } from 'jose'
import { AuthCore, hashPassword, MemoryApiKeyStore } from '@fastify-gatehouse/auth'
import type { Avatar } from '@fastify-gatehouse/core'
import { basicHeader, build } from './helpers/build.js'
import { fakeDateNow } from '../../../test-helpers/clock.js'

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const nowS = () => Math.floor(Date.now() / 1000)
const hs = async (claims: JWTPayload) => new SignJWT({ sub: 'alice', exp: nowS() + 600, ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET))

test('AuthCore: Basic is now on every request, cached or not; static tokens and API keys null; a JWT its auth_time', async (t) => {
  let now = 1_700_000_000_000
  const apiKeys = new MemoryApiKeyStore()
  const { key } = await apiKeys.issue({ label: 'ci-bot' })
  const passwordHash = await hashPassword('hashed-pw', { N: 1024, r: 8, p: 1 })
  const core = await AuthCore.create({
    basic: { alice: { password: 'plain-pw' }, bob: { passwordHash } },
    bearer: { deploy: { token: 'static-token-0123456789' } },
    jwt: [{ name: 'idp', secret: SECRET, algorithm: 'HS256' }],
    apiKeys,
    now: () => now
  })
  const at = async (header: string): Promise<number | null> => (await core.authenticate(header)).authenticatedAt

  t.equal(await at(basicHeader('alice', 'plain-pw')), now, 'Basic, a plain password')
  t.equal(await at(basicHeader('bob', 'hashed-pw')), now, 'Basic, a hash verified')
  now += 5000
  t.equal(await at(basicHeader('alice', 'plain-pw')), now, 'Basic again: the new now')
  t.equal(await at(basicHeader('bob', 'hashed-pw')), now, 'Basic from the cache of verified hashes: the new now')
  const first = await core.authenticate(basicHeader('alice', 'plain-pw'))
  const second = await core.authenticate(basicHeader('alice', 'plain-pw'))
  t.not(first, second, 'each request gets its own avatar')
  t.same([second.identity, second.tags, second.backend], [first.identity, first.tags, first.backend])

  t.equal(await at('Bearer static-token-0123456789'), null, 'a static bearer token')
  t.equal(await at(`Bearer ${key}`), null, 'an API key')
  t.equal(await at(`Bearer ${key}`), null, 'an API key, its avatar cached')
})

test('AuthCore: a JWT\'s auth_time ×1000 when it is a finite number, else null', async (t) => {
  fakeDateNow(t)
  const core = await AuthCore.create({ jwt: [{ name: 'idp', secret: SECRET, algorithm: 'HS256' }] })
  const signedIn = nowS() - 120
  const cases: Array<[string, unknown, number | null]> = [
    ['a number of seconds', signedIn, signedIn * 1000],
    ['a fraction', signedIn + 0.5, (signedIn + 0.5) * 1000],
    ['absent', undefined, null],
    ['a string', String(signedIn), null],
    ['null', null, null],
    ['a number too large for ms', 1e306, null],
    ['within the clock tolerance ahead (5 s)', nowS() + 5, (nowS() + 5) * 1000],
    ['in the future, past the tolerance', nowS() + 6, null],
    ['ten years ahead', nowS() + 315_360_000, null]
  ]
  for (const [name, authTime, expected] of cases) {
    const token = await hs(authTime === undefined ? {} : { auth_time: authTime } as JWTPayload)
    const avatar = await core.authenticate(`Bearer ${token}`) as Avatar
    t.equal(avatar.authenticatedAt, expected, name)
    t.equal((await core.authenticate(`Bearer ${token}`)).authenticatedAt, expected, `${name}, from the cache`)
  }
})

test('a fresh route: Basic always passes, an API key or a static token never, a JWT by its auth_time', async (t) => {
  fakeDateNow(t)
  const apiKeys = new MemoryApiKeyStore()
  const { key } = await apiKeys.issue({ label: 'ci-bot', tags: 'admin' })
  const app = await build({
    basic: { alice: { password: 'plain-pw', tags: 'admin' } },
    bearer: { deploy: { token: 'static-token-0123456789', tags: 'admin' } },
    jwt: [{ name: 'idp', secret: SECRET, algorithm: 'HS256' }],
    apiKeys
  }, (app) => {
    app.get('/keys', { authRule: 'admin', fresh: 300 }, async (req) => ({ caller: req.scope.auth?.identity }))
    app.get('/recent', { fresh: 300 }, async (req) => ({ caller: req.scope.auth?.identity }))
  })
  t.teardown(() => app.close())
  const challenge = 'Bearer realm="gatehouse", error="insufficient_user_authentication", error_description="A more recent sign-in is required", max_age="300"'
  const cases: Array<[string, string, string, number]> = [
    ['Basic', '/keys', basicHeader('alice', 'plain-pw'), 200],
    ['an API key', '/keys', `Bearer ${key}`, 401],
    ['a static token', '/keys', 'Bearer static-token-0123456789', 401],
    ['a JWT signed in 299 s ago', '/recent', `Bearer ${await hs({ auth_time: nowS() - 299 })}`, 200],
    ['a JWT signed in 301 s ago', '/recent', `Bearer ${await hs({ auth_time: nowS() - 301 })}`, 401],
    ['a JWT without auth_time', '/recent', `Bearer ${await hs({})}`, 401],
    ['a JWT without the admin tag', '/keys', `Bearer ${await hs({ auth_time: nowS() })}`, 403]
  ]
  for (const [name, url, authorization, status] of cases) {
    const res = await app.inject({ url, headers: { authorization } })
    t.equal(res.statusCode, status, name)
    if (status === 401) {
      t.equal(res.json().code, 'GATEHOUSE_CORE_REAUTHENTICATE', `${name}: the code`)
      t.equal(res.headers['www-authenticate'], challenge, `${name}: the challenge`)
    }
  }
})
