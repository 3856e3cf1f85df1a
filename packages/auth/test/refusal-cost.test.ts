import { test } from 'tap'
import { createHmac } from 'node:crypto'
import { MemoryApiKeyStore } from '@fastify-gatehouse/auth'
import { AuthCore } from '../src/auth-core.js'
import { basicHeader, build } from './helpers/build.js'

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
const head = b64({ alg: 'HS256' })
const body = b64({ sub: 'alice', exp: Math.floor(Date.now() / 1000) + 600 })
const badSignature = `${head}.${body}.${createHmac('sha256', 'another-secret-that-is-long-enough!!').update(`${head}.${body}`).digest('base64url')}`
const options = {
  basic: { alice: { password: 'wonderland', tags: 'reader' } },
  bearer: { svc: { token: 'static-bearer-token-0123456789', tags: 'reader' } },
  jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256' as const }]
}
const both = 'Basic realm="gatehouse", charset="UTF-8"'

// Status, code, message and challenge of each refusal, as they were before refusals stopped capturing a stack.
const refusals: Array<[string, string | string[], number, string, string, string | string[]]> = [
  ['a wrong Basic password', basicHeader('alice', 'wonderlanD'), 401, 'GATEHOUSE_AUTH_INVALID_CREDENTIALS', 'Invalid user name or password', both],
  ['Basic garbage', 'Basic !!!!', 401, 'GATEHOUSE_AUTH_BAD_HEADER', 'Basic credentials must be base64', both],
  ['an unknown bearer token', 'Bearer static-bearer-token-012345678X', 401, 'GATEHOUSE_AUTH_INVALID_TOKEN', 'The token is not valid', 'Bearer realm="gatehouse", error="invalid_token", error_description="The token is not valid"'],
  ['a JWT with a bad signature', `Bearer ${badSignature}`, 401, 'GATEHOUSE_AUTH_INVALID_TOKEN', 'The token signature is invalid', 'Bearer realm="gatehouse", error="invalid_token", error_description="The token signature is invalid"'],
  ['an unknown API key', 'Bearer gak_00112233445566aa_benchmarkSecretPartThatIsLongEnough0123456', 401, 'GATEHOUSE_AUTH_INVALID_TOKEN', 'The API key is unknown, revoked or expired', 'Bearer realm="gatehouse", error="invalid_token", error_description="The API key is unknown, revoked or expired"'],
  ['a malformed bearer request', 'Bearer a b', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the bearer token is not a b64token', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the bearer token is not a b64token"'],
  ['an unsupported scheme', 'Negotiate abc', 401, 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME', 'The Negotiate scheme is not accepted here. Sign in with Basic or Bearer credentials', [both, 'Bearer realm="gatehouse"']],
  ['two Authorization headers', ['Bearer a', 'Bearer b'], 400, 'GATEHOUSE_AUTH_DUPLICATE_AUTHORIZATION', 'Send one Authorization header, not several', '']
]

test('refusals keep their status, code, message and WWW-Authenticate', async (t) => {
  const app = await build({ ...options, apiKeys: new MemoryApiKeyStore() })
  t.teardown(() => app.close())
  for (const [what, authorization, status, code, message, challenge] of refusals) {
    // Two headers: inject sends an array as repeated header lines.
    const res = await app.inject({ url: '/me', headers: { authorization: authorization as string } })
    t.equal(res.statusCode, status, what)
    t.same(res.json(), { statusCode: status, code, error: status === 400 ? 'Bad Request' : 'Unauthorized', message }, what)
    if (challenge === '') t.notOk(res.headers['www-authenticate'], `${what}: no challenge`)
    else t.same(res.headers['www-authenticate'], challenge, what)
  }
})

test('refusals carry no stack trace (capturing one was most of their cost), and leave the stack limit as it was', async (t) => {
  const core = await AuthCore.create({ ...options, apiKeys: new MemoryApiKeyStore() })
  const limit = Error.stackTraceLimit
  for (const [what, authorization] of refusals) {
    if (Array.isArray(authorization)) continue
    const err = await (async () => core.authenticate(authorization))().then(() => undefined, (e: unknown) => e as Error)
    t.ok(err instanceof Error, what)
    t.equal(err!.stack, `FastifyError: ${err!.message}`, `${what}: name and message, no frames`)
  }
  t.equal(Error.stackTraceLimit, limit)
  t.match(new Error('elsewhere').stack, /\n\s+at /, 'other errors still capture their stack')
})
