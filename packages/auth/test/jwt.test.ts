import { test } from 'tap'
import { createHmac, generateKeyPairSync } from 'node:crypto'
import { createServer } from 'node:http'
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWTPayload } from 'jose'
import { AuthCore } from '@fastify-gatehouse/auth'
import { build } from './helpers/build.js'
import { fakeDateNow } from '../../../test-helpers/clock.js'

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const OTHER = 'another-very-long-shared-secret-32+bytes'
const enc = (s: string) => new TextEncoder().encode(s)
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
const nowS = () => Math.floor(Date.now() / 1000)

// Tokens expire in a minute unless the test sets (or removes, with undefined) exp.
async function hs (claims: JWTPayload, secret = SECRET, alg = 'HS256') {
  return new SignJWT({ exp: nowS() + 60, ...claims }).setProtectedHeader({ alg }).sign(enc(secret))
}

async function call (app: Awaited<ReturnType<typeof build>>, token: string) {
  const res = await app.inject({ url: '/open', headers: { authorization: `Bearer ${token}` } })
  return { status: res.statusCode, body: res.json(), challenge: res.headers['www-authenticate'] }
}

test('HS256 with tagsClaim: identity from sub, tags from the claim merged with the verifier tags', async (t) => {
  const app = await build({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', tags: 'jwt-user', tagsClaim: 'tags' }] })
  t.teardown(() => app.close())
  const cases: Array<[unknown, string[]]> = [
    [['admin', 'ops'], ['jwt-user', 'admin', 'ops']],
    ['admin, ops', ['jwt-user', 'admin', 'ops']],
    [null, ['jwt-user']],
    [undefined, ['jwt-user']]
  ]
  for (const [tags, expected] of cases) {
    const token = await hs({ sub: 'alice', tags, exp: nowS() + 60 } as JWTPayload)
    const res = await call(app, token)
    t.equal(res.status, 200, `tags ${JSON.stringify(tags)}`)
    t.same(res.body.caller, { identity: 'alice', tags: expected, backend: 'jwt:main' })
  }
  const wrongTags = await call(app, await hs({ sub: 'alice', tags: 42 } as JWTPayload))
  t.equal(wrongTags.status, 401)
  t.equal(wrongTags.body.message, 'The tags claim must be a list or a comma-separated string')
  const noSub = await call(app, await hs({ name: 'alice' }))
  t.equal(noSub.body.message, 'The token has no sub claim')
})

test('refused tokens: each a 401 with invalid_token and a reason', async (t) => {
  // Date.now() stands still (the verifier reads it): "expired 3 s ago" stays
  // within the 5 s tolerance however long signing and checking take.
  fakeDateNow(t)
  const { publicKey: rsaPublic, privateKey: rsaPrivate } = await generateKeyPair('RS256', { extractable: true })
  const pem = await exportSPKI(rsaPublic)
  const app = await build({
    jwt: [
      { name: 'hs', secret: SECRET, algorithm: 'HS256', issuer: 'https://issuer.example', audience: 'api', clockTolerance: 5 },
      { name: 'rs', publicKey: pem, algorithm: 'RS256' }
    ]
  })
  t.teardown(() => app.close())
  const good = { sub: 'alice', iss: 'https://issuer.example', aud: 'api' }
  const valid = await hs({ ...good, exp: nowS() + 60 })
  t.equal((await call(app, valid)).status, 200)
  t.equal((await call(app, await hs({ ...good, exp: nowS() - 3 }))).status, 200, 'expired 3 s ago: within the 5 s tolerance')

  const [header, payload, signature] = valid.split('.') as [string, string, string]
  const forged = b64({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'root', tags: ['admin'] })
  const rsSigned = await new SignJWT({ sub: 'bob' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('1m').sign(rsaPrivate)
  const cases: Array<[string, string, string]> = [
    ['expired', await hs({ ...good, exp: nowS() - 60 }), 'The token has expired'],
    ['not yet valid', await hs({ ...good, nbf: nowS() + 60 }), 'The token is not valid yet'],
    ['wrong issuer', await hs({ ...good, iss: 'https://evil.example' }), 'The token issuer is not accepted'],
    ['wrong audience', await hs({ ...good, aud: 'other' }), 'The token audience is not accepted'],
    ['tampered signature', `${header}.${payload}.${signature.slice(0, -4)}AAAA`, 'The token signature is invalid'],
    ['forged claim', `${header}.${forged}.${signature}`, 'The token signature is invalid'],
    ['other secret', await hs(good, OTHER), 'The token signature is invalid'],
    ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...good, tags: ['admin'] })}.`, 'The token algorithm is not accepted'],
    ['HS256 signed with the RS256 public key', await hs(good, pem), 'The token signature is invalid'],
    ['HS512 (not pinned)', await hs(good, SECRET + SECRET, 'HS512'), 'The token algorithm is not accepted'],
    ['garbage payload (the signature is checked before any parsing)', 'eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln', 'The token signature is invalid'],
    ['two segments: not a JWS, so an unknown token', `${header}.${payload}`, 'The token is not valid'],
    ['not a JWT', 'just-a-random-token', 'The token is not valid']
  ]
  for (const [what, token, reason] of cases) {
    const res = await call(app, token)
    t.equal(res.status, 401, what)
    t.equal(res.body.code, 'GATEHOUSE_AUTH_INVALID_TOKEN', what)
    t.equal(res.body.message, reason, what)
    t.equal(res.challenge, `Bearer realm="gatehouse", error="invalid_token", error_description="${reason}"`, what)
  }
  const rs = await call(app, rsSigned)
  t.same(rs.body.caller, { identity: 'bob', tags: [], backend: 'jwt:rs' }, 'the RS256 verifier accepts its own tokens')
})

test('exp and nbf: 5 s of clock tolerance by default, clockTolerance overrides it', async (t) => {
  // Date.now() stands still (the verifier reads it), so the margins (3 and 7
  // around 5) hold however long signing and checking take on a busy machine.
  fakeDateNow(t)
  const byDefault = await build({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256' }] })
  t.teardown(() => byDefault.close())
  const cases: Array<[string, JWTPayload, number, string | undefined]> = [
    ['expired 3 s ago', { exp: nowS() - 3 }, 200, undefined],
    ['expired 7 s ago', { exp: nowS() - 7 }, 401, 'The token has expired'],
    ['valid from 3 s ahead', { nbf: nowS() + 3 }, 200, undefined],
    ['valid from 7 s ahead', { nbf: nowS() + 7 }, 401, 'The token is not valid yet']
  ]
  for (const [what, claims, status, reason] of cases) {
    const res = await call(byDefault, await hs({ sub: 'alice', ...claims }))
    t.equal(res.status, status, what)
    if (reason !== undefined) t.equal(res.body.message, reason, what)
  }

  const strict = await build({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', clockTolerance: 0 }] })
  t.teardown(() => strict.close())
  t.equal((await call(strict, await hs({ sub: 'alice', exp: nowS() - 3 }))).body.message, 'The token has expired', 'clockTolerance 0')
  t.equal((await call(strict, await hs({ sub: 'alice', nbf: nowS() + 3 }))).body.message, 'The token is not valid yet', 'clockTolerance 0')
})

test('RS256 with only a public key: an HS256 token signed with that key is refused (no alg confusion)', async (t) => {
  const { publicKey } = await generateKeyPair('RS256', { extractable: true })
  const pem = await exportSPKI(publicKey)
  const app = await build({ jwt: [{ name: 'rs', publicKey: pem, algorithm: 'RS256' }] })
  t.teardown(() => app.close())
  const res = await call(app, await hs({ sub: 'mallory', tags: ['admin'] }, pem))
  t.equal(res.status, 401)
  t.equal(res.body.message, 'The token algorithm is not accepted')
})

test('several verifiers: the second one matches', async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true })
  const app = await build({
    jwt: [
      { name: 'first', secret: SECRET, algorithm: 'HS256', issuer: 'one' },
      { name: 'second', secret: OTHER, algorithm: 'HS256', issuer: 'two', tags: 'second' },
      { name: 'third', publicKey: await exportJWK(publicKey) as Record<string, unknown>, algorithm: 'ES256' }
    ]
  })
  t.teardown(() => app.close())
  const second = await call(app, await hs({ sub: 'carol', iss: 'two' }, OTHER))
  t.same(second.body.caller, { identity: 'carol', tags: ['second'], backend: 'jwt:second' })
  const es = await call(app, await new SignJWT({ sub: 'dave' }).setProtectedHeader({ alg: 'ES256' }).setExpirationTime('1m').sign(privateKey))
  t.same(es.body.caller, { identity: 'dave', tags: [], backend: 'jwt:third' }, 'a JWK public key')
})

test('identityClaim', async (t) => {
  const app = await build({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', identityClaim: 'email' }] })
  t.teardown(() => app.close())
  t.equal((await call(app, await hs({ sub: 'x', email: 'e@example.com' }))).body.caller.identity, 'e@example.com')
  t.equal((await call(app, await hs({ sub: 'x' }))).body.message, 'The token has no email claim')
})

test('jwksUri: fetched from a live endpoint, refetched for an unknown kid, 503 when down', async (t) => {
  const keys = [await generateKeyPair('RS256', { extractable: true })]
  let fetches = 0
  let up = true
  const jwks = createServer(async (_req, res) => {
    fetches++
    if (!up) { res.writeHead(500).end(); return }
    const set = await Promise.all(keys.map(async (k, i) => ({ ...(await exportJWK(k.publicKey)), kid: `k${i}`, alg: 'RS256', use: 'sig' })))
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: set }))
  })
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve))
  t.teardown(() => jwks.close())
  const { port } = jwks.address() as { port: number }
  const app = await build({ jwt: [{ name: 'idp', jwksUri: `http://127.0.0.1:${port}/jwks`, algorithm: 'RS256', jwksCooldown: 0 }] })
  t.teardown(() => app.close())
  const sign = (i: number, sub: string) => new SignJWT({ sub }).setProtectedHeader({ alg: 'RS256', kid: `k${i}` }).setExpirationTime('1m').sign(keys[i]!.privateKey)

  t.equal((await call(app, await sign(0, 'a'))).status, 200)
  t.equal((await call(app, await sign(0, 'b'))).status, 200)
  t.equal(fetches, 1, 'the key set is cached')
  keys.push(await generateKeyPair('RS256', { extractable: true }))
  const rotated = await call(app, await sign(1, 'c'))
  t.equal(rotated.status, 200, 'a new kid triggers a refetch')
  t.equal(fetches, 2)
  up = false
  const { privateKey: stranger } = await generateKeyPair('RS256')
  const down = await app.inject({ url: '/open', headers: { authorization: `Bearer ${await new SignJWT({ sub: 'd' }).setProtectedHeader({ alg: 'RS256', kid: 'k9' }).setExpirationTime('1m').sign(stranger)}` } })
  t.equal(down.statusCode, 503, 'the key set cannot be fetched: not the caller\'s fault')
  t.equal(down.json().code, 'GATEHOUSE_AUTH_KEYS_UNAVAILABLE')
  t.equal(down.headers['retry-after'], '30')
})

test('verified tokens are cached, never past exp', async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true })
  const jwks = createServer(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'RS256' }] }))
  })
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve))
  t.teardown(() => jwks.close())
  let now = Date.now()
  const core = await AuthCore.create({
    jwt: [{ name: 'idp', jwksUri: `http://127.0.0.1:${(jwks.address() as { port: number }).port}/`, algorithm: 'RS256', clockTolerance: 0 }],
    jwtCache: { max: 10, ttl: 300 },
    now: () => now
  })
  const token = await new SignJWT({ sub: 'alice', exp: Math.floor(now / 1000) + 10 }).setProtectedHeader({ alg: 'RS256', kid: 'k' }).sign(privateKey)
  const first = core.authenticate(`Bearer ${token}`)
  t.ok(first instanceof Promise, 'the first check needs the remote key (async)')
  t.equal((await first).identity, 'alice')
  t.notOk(core.authenticate(`Bearer ${token}`) instanceof Promise, 'a repeated token is answered from the cache')
  now += 11_000
  await t.rejects(async () => core.authenticate(`Bearer ${token}`), { code: 'GATEHOUSE_AUTH_INVALID_TOKEN', message: 'The token has expired' })
})

test('with a local key a fresh token is verified without a promise', async (t) => {
  const core = await AuthCore.create({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256' }] })
  const caller = core.authenticate(`Bearer ${await hs({ sub: 'alice' })}`)
  t.notOk(caller instanceof Promise)
  t.match(caller, { identity: 'alice', backend: 'jwt:main' })
})

test('bad verifiers fail at boot naming the verifier', async (t) => {
  const { publicKey } = await generateKeyPair('RS256', { extractable: true })
  const pem = await exportSPKI(publicKey)
  const cases: Array<[object, RegExp]> = [
    [{ secret: 'short', algorithm: 'HS256' }, /^jwt\.v: an HS256 secret must be at least 32 bytes$/],
    [{ secret: SECRET, algorithm: 'RS256' }, /^jwt\.v: RS256 needs publicKey or jwksUri/],
    [{ publicKey: pem, algorithm: 'HS256' }, /^jwt\.v: HS256 needs a secret/],
    [{ secret: SECRET, publicKey: pem, algorithm: 'HS256' }, /^jwt\.v: give exactly one of secret, publicKey, jwksUri, key$/],
    [{ algorithm: 'HS256' }, /give exactly one/],
    [{ secret: SECRET, algorithm: 'none' }, /^jwt\.v: algorithm must be one of/],
    [{ publicKey: 'not a pem', algorithm: 'RS256' }, /^jwt\.v: publicKey cannot be used for RS256/],
    [{ publicKey: pem, algorithm: 'ES256' }, /^jwt\.v: publicKey cannot be used for ES256/],
    [{ jwksUri: 'file:///etc/passwd', algorithm: 'RS256' }, /^jwt\.v: jwksUri must be an absolute http\(s\) URL$/],
    [{ jwksUri: 'not a url', algorithm: 'RS256' }, /jwksUri must be/]
  ]
  for (const [options, message] of cases) {
    await t.rejects(AuthCore.create({ jwt: [{ name: 'v', ...options } as never] }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message })
  }
})

test('every asymmetric family verifies through node:crypto', async (t) => {
  const families = ['PS256', 'ES384', 'EdDSA', 'RS512'] as const
  const keys = await Promise.all(families.map((alg) => generateKeyPair(alg, { extractable: true })))
  const jwt = await Promise.all(families.map(async (alg, i) => ({ name: alg.toLowerCase(), publicKey: await exportSPKI(keys[i]!.publicKey), algorithm: alg })))
  const app = await build({ jwt })
  t.teardown(() => app.close())
  for (const [i, alg] of families.entries()) {
    const token = await new SignJWT({ sub: `user-${alg}` }).setProtectedHeader({ alg }).setExpirationTime('1m').sign(keys[i]!.privateKey)
    const res = await call(app, token)
    t.equal(res.status, 200, alg)
    t.equal(res.body.caller.backend, `jwt:${alg.toLowerCase()}`)
    const [h, p, sig] = token.split('.') as [string, string, string]
    t.equal((await call(app, `${h}.${p}.${sig.slice(0, 20)}`)).body.message, 'The token signature is invalid', `${alg}: a truncated signature`)
  }
})

test('claims and headers the verifier refuses', async (t) => {
  const app = await build({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', audience: ['api', 'web'], issuer: ['a', 'b'] }] })
  t.teardown(() => app.close())
  const crit = await new SignJWT({ sub: 'x', iss: 'a', aud: 'api', exp: nowS() + 60 }).setProtectedHeader({ alg: 'HS256', crit: ['exp'] } as never).sign(enc(SECRET)).catch(() => undefined)
  const critToken = crit ?? `${b64({ alg: 'HS256', crit: ['zip'] })}.${b64({ sub: 'x' })}.c2ln`
  t.equal((await call(app, critToken)).body.message, 'The token uses unsupported critical header parameters')
  t.equal((await call(app, await hs({ sub: 'x', iss: 'a', aud: 'api', exp: 'tomorrow' } as never))).body.message, 'The token claims are invalid')
  const arrayClaims = `${b64({ alg: 'HS256' })}.${Buffer.from('[1,2]').toString('base64url')}`
  const signed = `${arrayClaims}.${createHmac('sha256', SECRET).update(arrayClaims).digest('base64url')}`
  t.equal((await call(app, signed)).body.message, 'The token claims are invalid', 'a signed claims set that is not an object')
  t.equal((await call(app, await hs({ sub: 'x', iss: 'b', aud: ['other', 'web'] }))).status, 200, 'one accepted audience in a list, the second accepted issuer')
  t.equal((await call(app, await hs({ sub: 'x', iss: 'b', aud: ['other'] }))).body.message, 'The token audience is not accepted')
  t.equal((await call(app, await hs({ sub: 'x', aud: 'api' }))).body.message, 'The token issuer is not accepted', 'a missing iss when one is required')
  t.equal((await call(app, `${b64({ alg: 'HS256' })}.e30.a+b`)).status, 401, 'non-base64url characters')
})

test('keys that do not fit the algorithm fail at boot', async (t) => {
  const weakPem = generateKeyPairSync('rsa', { modulusLength: 1024, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } }).publicKey
  const { publicKey: ec } = await generateKeyPair('ES256', { extractable: true })
  const { publicKey: ed } = await generateKeyPair('EdDSA', { extractable: true })
  const cases: Array<[object, RegExp]> = [
    [{ publicKey: weakPem, algorithm: 'RS256' }, /^jwt\.v: (publicKey: RS256 needs an RSA key of at least 2048 bits|publicKey cannot be used for RS256: .*2048)/],
    [{ publicKey: await exportSPKI(ec), algorithm: 'ES384' }, /^jwt\.v: publicKey/],
    [{ publicKey: await exportJWK(ed) as Record<string, unknown>, algorithm: 'ES256' }, /^jwt\.v: publicKey/],
    [{ jwksUri: 'https://idp.example/jwks', algorithm: 'RS256', jwksCooldown: -1 }, /^jwt\.v: jwksCooldown must be from 0 to 3600 seconds$/],
    [{ secret: SECRET, algorithm: 'HS256', clockTolerance: 1000 }, /^jwt\.v: clockTolerance must be from 0 to 300 seconds$/]
  ]
  for (const [options, message] of cases) {
    await t.rejects(AuthCore.create({ jwt: [{ name: 'v', ...options } as never] }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message })
  }
})
