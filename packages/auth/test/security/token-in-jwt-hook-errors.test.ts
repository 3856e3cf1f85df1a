// Issue 25 review, item 5: what a JWT verifier's key resolver or isRevoked
// threw was kept as the 503's cause, only filtered by redactText, while
// D-AUTH-63 says a callback's throw is replaced, never scrubbed: a token
// base64- or URL-encoded in its message reached the log. Now only the call's
// name and the thrown value's class and code are logged.
import { test } from 'tap'
import Fastify, { type FastifyBaseLogger, type FastifyRequest } from 'fastify'
import pino from 'pino'
import { SignJWT } from 'jose'
import { middlewareChain } from '@fastify-gatehouse/core'
import type { AuthOptions } from '@fastify-gatehouse/auth'
import { components } from '../helpers/build.js'

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'

function forms (token: string): Record<string, string> {
  return {
    raw: token,
    'base64 of the token': Buffer.from(token).toString('base64'),
    'URL-encoded bearer header': encodeURIComponent(`Bearer ${token}`),
    signature: token.split('.')[2]!
  }
}

/** Errors quoting the token the request carried, in several encodings; thrown or rejected by turns. */
function thrower (request: FastifyRequest | undefined, nth: number): never {
  const token = request!.headers.authorization!.slice('Bearer '.length)
  const kinds = [
    new Error(`lookup failed for ${token}`),
    Object.assign(new Error('lookup failed'), { code: 'ECONNREFUSED', detail: Buffer.from(token).toString('base64') }),
    new TypeError('bad', { cause: new Error(encodeURIComponent(`Bearer ${token}`)) }),
    new Error(`sig ${token.split('.')[2]!}`)
  ]
  throw kinds[nth % kinds.length]
}

async function app (options: AuthOptions) {
  const lines: string[] = []
  const server = Fastify({ loggerInstance: pino({ level: 'trace' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger })
  await middlewareChain(server, { authMiddleware: options as Record<string, unknown> }, { components })
  server.get('/me', { authRule: 'admin' }, async () => ({ ok: true }))
  await server.ready()
  return { server, lines }
}

const hs = async (jti: string) => new SignJWT({ sub: 'alice', jti, exp: Math.floor(Date.now() / 1000) + 600 }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET))

test('a key resolver or isRevoked that throws the token, in any encoding, logs none of it', async (t) => {
  let nth = 0
  const cases: Array<[string, AuthOptions, string, string]> = [
    ['key resolver, sync', { jwt: [{ name: 'r', algorithm: 'HS256', key: (_h, _c, request) => thrower(request, nth++) }] }, 'GATEHOUSE_AUTH_KEYS_UNAVAILABLE', 'the key resolver threw'],
    ['key resolver, async', { jwt: [{ name: 'r', algorithm: 'HS256', key: async (_h, _c, request) => await Promise.resolve().then(() => thrower(request, nth++)) }] }, 'GATEHOUSE_AUTH_KEYS_UNAVAILABLE', 'the key resolver threw'],
    ['isRevoked, sync', { jwt: [{ name: 'v', algorithm: 'HS256', secret: SECRET, isRevoked: (_c, request) => thrower(request, nth++) }] }, 'GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE', 'isRevoked threw'],
    ['isRevoked, async', { jwt: [{ name: 'v', algorithm: 'HS256', secret: SECRET, isRevoked: async (_c, request) => await Promise.resolve().then(() => thrower(request, nth++)) }] }, 'GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE', 'isRevoked threw']
  ]
  for (const [what, options, code, logged] of cases) {
    const { server, lines } = await app(options)
    t.teardown(() => server.close())
    for (let i = 0; i < 4; i++) {
      const token = await hs(`${what}-${i}`)
      const res = await server.inject({ url: '/me', headers: { authorization: `Bearer ${token}` } })
      t.equal(res.statusCode, 503, `${what} #${i}`)
      t.equal(res.json().code, code)
      t.equal(res.headers['retry-after'], '30')
      const all = lines.join('\n')
      for (const [form, value] of Object.entries(forms(token))) {
        t.notOk(res.body.includes(value), `${what} #${i}: the ${form} is not in the response`)
        t.notOk(all.includes(value), `${what} #${i}: the ${form} is in no log line`)
      }
    }
    t.match(lines.join('\n'), logged, `${what}: the log names the call`)
    t.match(lines.join('\n'), /Error ECONNREFUSED|TypeError, caused by Error/, `${what}: and the class and code`)
  }
})
