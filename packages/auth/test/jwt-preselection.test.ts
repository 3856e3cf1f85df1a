import { test, type Test } from 'tap'
import { generateKeyPairSync } from 'node:crypto'
import { exportJWK, importPKCS8, SignJWT, type JWTPayload } from 'jose'
import { AuthCore } from '@fastify-gatehouse/auth'
import { JwtVerifier } from '../src/jwt.js'

const SECRETS = ['secret-of-verifier-a-32-bytes-long!!', 'secret-of-verifier-b-32-bytes-long!!', 'secret-of-verifier-c-32-bytes-long!!']
const enc = (s: string) => new TextEncoder().encode(s)
const nowS = () => Math.floor(Date.now() / 1000)
const hs = (claims: JWTPayload, secret: string) =>
  new SignJWT({ exp: nowS() + 60, sub: 'alice', ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(enc(secret))

// Counts which verifiers check a signature (verify is where the key is used).
function spyVerify (t: Test): string[] {
  const checked: string[] = []
  const original = JwtVerifier.prototype.verify
  JwtVerifier.prototype.verify = function (this: JwtVerifier, ...args: Parameters<JwtVerifier['verify']>) {
    checked.push(this.name)
    return original.apply(this, args)
  }
  t.teardown(() => { JwtVerifier.prototype.verify = original })
  return checked
}

const three = ['a', 'b', 'c'].map((name, i) => ({ name, secret: SECRETS[i]!, algorithm: 'HS256' as const, issuer: `https://${name}.example` }))

test('iss picks the verifier: a token of C is checked by C alone', async (t) => {
  const checked = spyVerify(t)
  const core = await AuthCore.create({ jwt: three })
  const avatar = await core.authenticate(`Bearer ${await hs({ iss: 'https://c.example' }, SECRETS[2]!)}`)
  t.equal(avatar.backend, 'jwt:c')
  t.same(checked, ['c'], 'a and b were skipped without a signature check')
})

test('a token skipped by every verifier is refused as before, and no signature is checked', async (t) => {
  const checked = spyVerify(t)
  const core = await AuthCore.create({ jwt: three })
  // Signed with A's secret but claiming C: C checks (and refuses) the signature; A never sees it.
  await t.rejects(async () => core.authenticate(`Bearer ${await hs({ iss: 'https://c.example' }, SECRETS[0]!)}`),
    { statusCode: 401, code: 'GATEHOUSE_AUTH_INVALID_TOKEN', message: 'The token issuer is not accepted' })
  t.same(checked, ['c'])
  checked.length = 0
  await t.rejects(async () => core.authenticate(`Bearer ${await hs({ iss: 'https://unknown.example' }, SECRETS[0]!)}`),
    { statusCode: 401, code: 'GATEHOUSE_AUTH_INVALID_TOKEN', message: 'The token issuer is not accepted' })
  await t.rejects(async () => core.authenticate(`Bearer ${await hs({}, SECRETS[0]!)}`),
    { statusCode: 401, message: 'The token issuer is not accepted' }, 'no iss at all')
  t.same(checked, [], 'unknown or absent issuers cost no signature check')
})

test('a verifier without an issuer list is always tried; a payload that is not JSON skips nothing', async (t) => {
  const checked = spyVerify(t)
  const core = await AuthCore.create({ jwt: [three[0]!, { name: 'any', secret: SECRETS[1]!, algorithm: 'HS256' }] })
  const avatar = await core.authenticate(`Bearer ${await hs({ iss: 'https://elsewhere.example' }, SECRETS[1]!)}`)
  t.equal(avatar.backend, 'jwt:any')
  t.same(checked, ['any'])
  checked.length = 0
  const garbage = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('not json').toString('base64url')}.c2ln`
  await t.rejects(async () => core.authenticate(`Bearer ${garbage}`), { statusCode: 401, message: 'The token signature is invalid' })
  t.same(checked, ['a', 'any'], 'the signature is checked first, as without preselection')
})

test('an issuer given as a RegExp never picks: it runs only on a payload whose signature passed', async (t) => {
  const checked = spyVerify(t)
  const patterns: string[] = []
  // A RegExp that records what it is tested against: nothing unsigned may reach it.
  const watched = /^https:\/\/b\.example$/
  const test = watched.test.bind(watched)
  watched.test = (value: string) => { patterns.push(value); return test(value) }
  const core = await AuthCore.create({ jwt: [three[0]!, { ...three[1]!, issuer: [watched, 'https://b2.example'] }, three[2]!] })
  const forged = await hs({ iss: 'https://b.example' }, SECRETS[0]!)
  await t.rejects(async () => core.authenticate(`Bearer ${forged}`), { statusCode: 401, code: 'GATEHOUSE_AUTH_INVALID_TOKEN' })
  t.same(checked, ['b'], 'a and c skipped by their exact issuers; b, with a RegExp, checks the signature')
  t.same(patterns, [], 'the RegExp never saw the forged payload')
  checked.length = 0
  const avatar = await core.authenticate(`Bearer ${await hs({ iss: 'https://b.example' }, SECRETS[1]!)}`)
  t.equal(avatar.backend, 'jwt:b')
  t.same(checked, ['b'])
  t.same(patterns, ['https://b.example'], 'tested once, after the signature passed')
})

test('one verifier: the signature is still checked before the payload (D-AUTH-01)', async (t) => {
  const checked = spyVerify(t)
  const core = await AuthCore.create({ jwt: [three[0]!] })
  await t.rejects(async () => core.authenticate(`Bearer ${await hs({ iss: 'https://b.example' }, SECRETS[1]!)}`),
    { statusCode: 401, message: 'The token signature is invalid' })
  t.same(checked, ['a'])
})

test('kid picks among JWK public keys: a token naming another kid is not checked by this key', async (t) => {
  const checked = spyVerify(t)
  const pairs = [0, 1].map(() => generateKeyPairSync('ec', { namedCurve: 'prime256v1', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } }))
  const { createPublicKey } = await import('node:crypto')
  const jwks = await Promise.all(pairs.map(async (p, i) => ({ ...(await exportJWK(createPublicKey(p.publicKey))), kid: `key-${i}` })))
  const core = await AuthCore.create({ jwt: jwks.map((jwk, i) => ({ name: `k${i}`, publicKey: jwk as Record<string, unknown>, algorithm: 'ES256' as const })) })
  const sign = async (i: number, kid: string | undefined) =>
    new SignJWT({ sub: 'alice', exp: nowS() + 60 }).setProtectedHeader(kid === undefined ? { alg: 'ES256' } : { alg: 'ES256', kid }).sign(await importPKCS8(pairs[i]!.privateKey, 'ES256'))
  t.equal((await core.authenticate(`Bearer ${await sign(1, 'key-1')}`)).backend, 'jwt:k1')
  t.same(checked, ['k1'], 'k0 (kid key-0) skipped')
  checked.length = 0
  t.equal((await core.authenticate(`Bearer ${await sign(1, undefined)}`)).backend, 'jwt:k1', 'a token without kid is tried by every key')
  t.same(checked, ['k0', 'k1'])
  checked.length = 0
  await t.rejects(async () => core.authenticate(`Bearer ${await sign(0, 'key-9')}`), { statusCode: 401, message: 'No key matches the token' })
  t.same(checked, [], 'an unknown kid costs no signature check')
})
