import { test, type Test } from 'tap'
import { createHmac } from 'node:crypto'
import { MemoryApiKeyStore } from '@fastify-gatehouse/auth'
import { basicHeader, build } from './helpers/build.js'
import { untilPast } from '../../../test-helpers/wait.js'

// The spec's example checks, via inject and over a real socket.
const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const apiKeys = new MemoryApiKeyStore()
const options = {
  basic: { admin: { password: 'admin-pass', tags: 'admin' } },
  bearer: { svc: { token: 'svc-token-1', tags: 'reader' } },
  jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256' as const }],
  apiKeys
}

function hs256 (claims: object): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const signing = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`
  return `${signing}.${createHmac('sha256', SECRET).update(signing).digest('base64url')}`
}
const expiredJwt = hs256({ sub: 'alice', tags: ['admin'], exp: Math.floor(Date.now() / 1000) - 60 })
// A key can only be issued to expire in the future: issue it for 50 ms and let it lapse.
const expiresAt = new Date(Date.now() + 50)
const expiredKey = apiKeys.issue({ label: 'old-bot', tags: 'admin', expiresAt })
  .then(async ({ key }) => { await untilPast(expiresAt.getTime()); return key })

async function checks (t: Test, call: (url: string, authorization?: string) => Promise<{ status: number, body: string, challenge: string | undefined }>) {
  const noCredentials = await call('/admin')
  t.equal(noCredentials.status, 403, 'protected route, no credentials → 403')
  const basic = await call('/admin', basicHeader('admin', 'admin-pass'))
  t.equal(basic.status, 200, 'valid basic credentials → the route')
  t.same(JSON.parse(basic.body), { admin: 'admin' })
  const bearerOpen = await call('/open', 'Bearer svc-token-1')
  t.equal(bearerOpen.status, 200, 'valid bearer on an open route → the route')
  t.same(JSON.parse(bearerOpen.body).caller, { identity: 'svc', tags: ['reader'], backend: 'bearer' })
  const invalid = await call('/open', 'Bearer wrong')
  t.equal(invalid.status, 401, 'invalid credential → 401')
  t.match(invalid.challenge, /^Bearer realm="gatehouse", error="invalid_token"/)
  const badBasic = await call('/admin', basicHeader('admin', 'nope'))
  t.equal(badBasic.status, 401)
  t.equal(badBasic.challenge, 'Basic realm="gatehouse", charset="UTF-8"')
  const expired = await call('/admin', `Bearer ${expiredJwt}`)
  t.equal(expired.status, 401, 'expired JWT → 401')
  t.equal(JSON.parse(expired.body).code, 'GATEHOUSE_AUTH_INVALID_TOKEN')
  t.equal(expired.challenge, 'Bearer realm="gatehouse", error="invalid_token", error_description="The token has expired"')
  const expiredApiKey = await call('/admin', `Bearer ${await expiredKey}`)
  t.equal(expiredApiKey.status, 401, 'expired API key → 401')
  t.equal(expiredApiKey.challenge, 'Bearer realm="gatehouse", error="invalid_token", error_description="The API key is unknown, revoked or expired"')
}

test('spec examples via inject', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  await checks(t, async (url, authorization) => {
    const res = await app.inject({ url, headers: authorization === undefined ? {} : { authorization } })
    return { status: res.statusCode, body: res.body, challenge: res.headers['www-authenticate'] as string | undefined }
  })
})

test('spec examples over a real socket', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  await checks(t, async (url, authorization) => {
    const res = await fetch(`http://127.0.0.1:${port}${url}`, { headers: authorization === undefined ? {} : { authorization } })
    return { status: res.status, body: await res.text(), challenge: res.headers.get('www-authenticate') ?? undefined }
  })
})
