import { test } from 'tap'
import { SignJWT, type JWTPayload } from 'jose'
import type { FastifyRequest } from 'fastify'
import { AuthCore, type JwtVerifierOptions } from '@fastify-gatehouse/auth'
import { build } from './helpers/build.js'
import { fakeDateNow } from '../../../test-helpers/clock.js'
import { hangSignal } from '../../../test-helpers/wait.js'

// isRevoked: asked after every other check; "revoked" remembered until the
// token expires, "not revoked" trusted as long as the verified token is cached.

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const enc = (s: string) => new TextEncoder().encode(s)
const nowS = () => Math.floor(Date.now() / 1000)
const hs = async (claims: JWTPayload) => new SignJWT({ exp: nowS() + 600, ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(enc(SECRET))

async function call (app: Awaited<ReturnType<typeof build>>, token: string) {
  const res = await app.inject({ url: '/open', headers: { authorization: `Bearer ${token}` } })
  return { status: res.statusCode, body: res.json(), challenge: res.headers['www-authenticate'] }
}

const verifier = (extra: Partial<JwtVerifierOptions>) => ({ jwt: [{ name: 'v', secret: SECRET, algorithm: 'HS256' as const, ...extra }] })

test('a revoked token is refused and stays refused without asking again; the hook sees the claims and the request', async (t) => {
  const denied = new Set(['t1'])
  const asked: string[] = []
  const app = await build(verifier({
    isRevoked: (claims, request) => {
      asked.push(`${String(claims.jti)} ${request?.url ?? 'no request'} ${Object.isFrozen(claims)}`)
      return denied.has(claims.jti as string)
    }
  }))
  t.teardown(() => app.close())
  const revoked = await hs({ sub: 'alice', jti: 't1' })
  for (let i = 0; i < 3; i++) {
    const res = await call(app, revoked)
    t.equal(res.status, 401)
    t.equal(res.body.code, 'GATEHOUSE_AUTH_INVALID_TOKEN')
    t.equal(res.challenge, 'Bearer realm="gatehouse", error="invalid_token", error_description="The token has been revoked"')
  }
  denied.delete('t1')
  t.equal((await call(app, revoked)).status, 401, 'a revoked token stays refused, even when the hook would now say otherwise')
  const good = await hs({ sub: 'bob', jti: 't2' })
  t.equal((await call(app, good)).status, 200)
  t.equal((await call(app, good)).status, 200)
  t.same(asked, ['t1 /open true', 't2 /open true'], 'asked once per token: the answers are cached')
  const forged = await hs({ sub: 'bob', jti: 't1' })
  t.equal((await call(app, `${forged.slice(0, -4)}AAAA`)).body.message, 'The token signature is invalid', 'asked only about tokens that passed every other check')
})

test('"not revoked" is trusted while the verified token is cached: cacheTtl, at most jwtCache.ttl', async (t) => {
  const clock = fakeDateNow(t)
  const denied = new Set<string>()
  let calls = 0
  const isRevoked = (claims: Readonly<Record<string, unknown>>) => { calls++; return denied.has(claims.jti as string) }
  const app = await build({ ...verifier({ isRevoked, cacheTtl: 10 }), jwtCache: { ttl: 60 } })
  t.teardown(() => app.close())
  const token = await hs({ sub: 'alice', jti: 'j' })
  t.equal((await call(app, token)).status, 200)
  denied.add('j')
  clock.advance(9_000)
  t.equal((await call(app, token)).status, 200, 'within cacheTtl: the earlier answer holds')
  t.equal(calls, 1)
  clock.advance(2_000)
  t.equal((await call(app, token)).body.message, 'The token has been revoked', 'past cacheTtl: asked again')
  t.equal(calls, 2)

  const capped = await build({ ...verifier({ isRevoked, cacheTtl: 600 }), jwtCache: { ttl: 5 } })
  t.teardown(() => capped.close())
  const other = await hs({ sub: 'bob', jti: 'k' })
  t.equal((await call(capped, other)).status, 200)
  denied.add('k')
  clock.advance(6_000)
  t.equal((await call(capped, other)).status, 401, 'jwtCache.ttl caps cacheTtl')

  const never = await build(verifier({ isRevoked, cacheTtl: 0 }))
  t.teardown(() => never.close())
  const before = calls
  const third = await hs({ sub: 'carol', jti: 'l' })
  await call(never, third)
  await call(never, third)
  t.equal(calls - before, 2, 'cacheTtl 0: asked on every request')
})

test('a revoked answer outlives cacheTtl: remembered until the token expires, the hook not asked again', async (t) => {
  const clock = fakeDateNow(t)
  const denied = new Set(['r'])
  let calls = 0
  const app = await build(verifier({ cacheTtl: 5, isRevoked: (claims) => { calls++; return denied.has(claims.jti as string) } }))
  t.teardown(() => app.close())
  const token = await hs({ sub: 'alice', jti: 'r' })
  t.equal((await call(app, token)).body.message, 'The token has been revoked')
  denied.delete('r')
  clock.advance(60_000)
  const later = await call(app, token)
  t.equal(later.status, 401, 'a minute later (12 × cacheTtl), still refused')
  t.equal(later.body.message, 'The token has been revoked')
  t.equal(calls, 1, 'the hook was asked once')
  clock.advance(600_000)
  t.equal((await call(app, token)).body.message, 'The token has expired', 'past exp, the token is refused as expired')
})

test('a failing hook is a 503 (fail closed), never a 500; a non-boolean answer too', async (t) => {
  const answers: Record<string, () => unknown> = {
    throws: () => { throw new Error('db down') },
    rejects: async () => { throw new Error('db down') },
    'answers a string': () => 'no',
    'answers undefined': () => undefined
  }
  const app = await build(verifier({ isRevoked: ((claims: Readonly<Record<string, unknown>>) => answers[claims.jti as string]!()) as never }))
  t.teardown(() => app.close())
  for (const jti of Object.keys(answers)) {
    const res = await app.inject({ url: '/open', headers: { authorization: `Bearer ${await hs({ sub: 'a', jti })}` } })
    t.equal(res.statusCode, 503, jti)
    t.equal(res.json().code, 'GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE', jti)
    t.equal(res.json().message, 'Cannot verify the token now: the revocation check failed', jti)
    t.equal(res.headers['retry-after'], '30', jti)
  }
})

test('hooks that never answer: a 503 after 5 s, not a hang', async (t) => {
  const never = () => new Promise<never>(() => {})
  const revocation = await build(verifier({ isRevoked: never }))
  const keys = await build({ jwt: [{ name: 'r', key: never, algorithm: 'HS256' }] })
  t.teardown(() => Promise.all([revocation.close(), keys.close()]))
  const token = await hs({ sub: 'a' })
  const [a, b] = await Promise.all([call(revocation, token), call(keys, token)])
  t.equal(a.status, 503)
  t.equal(a.body.code, 'GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE')
  t.equal(b.status, 503)
  t.equal(b.body.code, 'GATEHOUSE_AUTH_KEYS_UNAVAILABLE')
})

test('AuthCore alone: isRevoked gets no request', async (t) => {
  let got: FastifyRequest | undefined | null = null
  const core = await AuthCore.create(verifier({ isRevoked: (_claims, request) => { got = request; return false } }))
  const avatar = await core.authenticate(`Bearer ${await hs({ sub: 'a' })}`)
  t.equal(avatar.identity, 'a')
  t.equal(got, undefined)
})

test('dozens of parallel requests over sockets with one token: one hook call at a time; once revoked and the cache expired, all refused', async (t) => {
  const denied = new Set<string>()
  let calls = 0
  let inFlight = 0
  let maxInFlight = 0
  const isRevoked = async (claims: Readonly<Record<string, unknown>>) => {
    calls++
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    // A round trip to a deny list elsewhere.
    await new Promise((resolve) => setImmediate(resolve))
    inFlight--
    return denied.has(claims.jti as string)
  }
  const clock = fakeDateNow(t)
  const app = await build(verifier({ isRevoked, cacheTtl: 30 }))
  t.teardown(() => app.close())
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const token = await hs({ sub: 'alice', jti: 'shared' })
  const burst = async () => Promise.all(Array.from({ length: 40 }, async () => {
    const res = await fetch(`${base}/open`, { headers: { authorization: `Bearer ${token}` }, signal: hangSignal() })
    const body = await res.json() as { code?: string, message?: string, caller?: { identity: string } }
    return { status: res.status, body, challenge: res.headers.get('www-authenticate') }
  }))

  const before = await burst()
  t.same(before.map((r) => r.status), Array(40).fill(200), 'not revoked: all accepted')
  t.equal(maxInFlight, 1, 'concurrent first requests share one call')
  const callsBefore = calls
  t.equal(callsBefore, 1, 'asked once for the whole burst')

  denied.add('shared')
  clock.advance(31_000)
  const after = await burst()
  t.same(after.map((r) => r.status), Array(40).fill(401), 'revoked, the cache expired: all refused')
  t.ok(after.every((r) => r.body.code === 'GATEHOUSE_AUTH_INVALID_TOKEN' && r.challenge === 'Bearer realm="gatehouse", error="invalid_token", error_description="The token has been revoked"'))
  t.equal(maxInFlight, 1)
  const callsAfter = calls
  t.ok(callsAfter - callsBefore >= 1, 'asked again once the cache expired')

  denied.delete('shared')
  const still = await burst()
  t.same(still.map((r) => r.status), Array(40).fill(401), 'still refused: the revocation is remembered')
  t.equal(calls, callsAfter, 'and the hook is not asked again')
})
