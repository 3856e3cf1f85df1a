import { test, type Test } from 'tap'
import { createSecretKey, generateKeyPairSync } from 'node:crypto'
import { exportJWK, SignJWT, type JWTPayload } from 'jose'
import { AuthCore, type JwtKey, type JwtVerifierOptions } from '@fastify-gatehouse/auth'
import { build } from './helpers/build.js'

// The `key` option: a function choosing the key per token, beside secret,
// publicKey and jwksUri; the algorithm stays pinned.

const SECRETS: Record<string, string> = {
  a: 'secret-of-tenant-a-is-at-least-32-bytes',
  b: 'secret-of-tenant-b-is-at-least-32-bytes'
}
const enc = (s: string) => new TextEncoder().encode(s)
const nowS = () => Math.floor(Date.now() / 1000)

async function hs (claims: JWTPayload, kid: string, secret = SECRETS[kid]!) {
  return new SignJWT({ exp: nowS() + 60, ...claims }).setProtectedHeader({ alg: 'HS256', kid }).sign(enc(secret))
}

async function call (app: Awaited<ReturnType<typeof build>>, token: string) {
  const res = await app.inject({ url: '/open', headers: { authorization: `Bearer ${token}` } })
  return { status: res.statusCode, body: res.json(), challenge: res.headers['www-authenticate'], retryAfter: res.headers['retry-after'] }
}

async function withKey (t: Test, key: JwtVerifierOptions['key'], algorithm: JwtVerifierOptions['algorithm'] = 'HS256') {
  const app = await build({ jwt: [{ name: 'r', key, algorithm }] })
  t.teardown(() => app.close())
  return app
}

test('a sync resolver picks the secret by kid; it sees the header and the unverified claims', async (t) => {
  const asked: Array<[unknown, unknown]> = []
  const app = await withKey(t, (header, claims) => {
    asked.push([header.kid, claims.tenant])
    return SECRETS[header.kid as string] ?? null
  })
  const a = await call(app, await hs({ sub: 'alice', tenant: 'a' }, 'a'))
  t.equal(a.status, 200)
  t.same(a.body.caller, { identity: 'alice', tags: [], backend: 'jwt:r' })
  t.equal((await call(app, await hs({ sub: 'bob', tenant: 'b' }, 'b'))).status, 200)
  t.same(asked, [['a', 'a'], ['b', 'b']])
  const unknown = await call(app, await hs({ sub: 'eve' }, 'z', SECRETS.a))
  t.equal(unknown.status, 401, 'null: no key for this token')
  t.equal(unknown.body.code, 'GATEHOUSE_AUTH_INVALID_TOKEN')
  t.equal(unknown.challenge, 'Bearer realm="gatehouse", error="invalid_token", error_description="No key matches the token"')
  const wrong = await call(app, await hs({ sub: 'eve' }, 'a', SECRETS.b))
  t.equal(wrong.body.message, 'The token signature is invalid', 'the key the kid names, not the one that signed')
})

test('an async resolver; bytes, KeyObjects and JWKs are keys too', async (t) => {
  const answers: Record<string, JwtKey> = {
    a: Buffer.from(SECRETS.a!),
    b: createSecretKey(Buffer.from(SECRETS.b!))
  }
  const app = await withKey(t, async (header) => answers[header.kid as string])
  t.equal((await call(app, await hs({ sub: 'alice' }, 'a'))).status, 200, 'bytes')
  t.equal((await call(app, await hs({ sub: 'bob' }, 'b'))).status, 200, 'a secret KeyObject')

  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const jwk = { ...await exportJWK(publicKey), alg: 'ES256' }
  const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string
  const forms: Record<string, JwtKey> = { jwk, pem, object: publicKey }
  const es = await withKey(t, (header) => forms[header.kid as string], 'ES256')
  for (const kid of Object.keys(forms)) {
    const token = await new SignJWT({ sub: kid }).setProtectedHeader({ alg: 'ES256', kid }).setExpirationTime('1m').sign(privateKey)
    t.equal((await call(es, token)).status, 200, `ES256 public key as ${kid}`)
  }
})

test('a resolver that fails or answers an unusable key: 503, never a 500, no key in the answer', async (t) => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const short = generateKeyPairSync('rsa', { modulusLength: 1024 })
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const answers: Record<string, () => unknown> = {
    throws: () => { throw new Error('vault down: secret=hunter2') },
    rejects: async () => { throw new Error('vault down') },
    number: () => 42,
    'short secret': () => 'too-short',
    'an RSA key for HS256': () => rsa.publicKey,
    'a short secret KeyObject': () => createSecretKey(Buffer.alloc(8))
  }
  const app = await withKey(t, (header) => answers[header.kid as string]!() as JwtKey)
  for (const kid of Object.keys(answers)) {
    const res = await call(app, await hs({ sub: 'alice' }, kid, SECRETS.a))
    t.equal(res.status, 503, kid)
    t.equal(res.body.code, 'GATEHOUSE_AUTH_KEYS_UNAVAILABLE', kid)
    t.equal(res.body.message, 'Cannot verify the token now: the signing keys are unavailable', kid)
    t.equal(res.retryAfter, '30', kid)
    t.notMatch(JSON.stringify(res.body), /hunter2|vault/, kid)
  }
  // The algorithm stays pinned: an RS256 verifier refuses a short RSA key, an EC key, a private key.
  const rs = await withKey(t, (header) => ({ short: short.publicKey, ec: ec.publicKey, private: rsa.privateKey })[header.kid as string], 'RS256')
  for (const kid of ['short', 'ec', 'private']) {
    const token = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'RS256', kid }).setExpirationTime('1m').sign(rsa.privateKey)
    const res = await call(rs, token)
    t.equal(res.status, 503, `RS256 with ${kid}`)
  }
  // A JWK whose alg says another algorithm is not used for this one.
  const jwk = { ...await exportJWK(rsa.publicKey), alg: 'RS512' }
  const mislabelled = await withKey(t, () => jwk, 'RS256')
  const token = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('1m').sign(rsa.privateKey)
  t.equal((await call(mislabelled, token)).status, 503, 'a JWK for RS512')
})

test('key: boot checks', async (t) => {
  await t.rejects(AuthCore.create({ jwt: [{ name: 'r', key: 'not-a-function' as never, algorithm: 'HS256' }] }),
    { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'jwt.r.key: must be a function (header, claims, request) => key' })
  await t.rejects(AuthCore.create({ jwt: [{ name: 'r', key: () => null, secret: SECRETS.a, algorithm: 'HS256' }] }),
    { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'jwt.r: give exactly one of secret, publicKey, jwksUri, key' })
})
