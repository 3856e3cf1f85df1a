import { test } from 'tap'
import { MemoryApiKeyStore } from '@fastify-gatehouse/auth'
import { build } from './helpers/build.js'
import { untilPast } from '../../../test-helpers/wait.js'

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'

async function setup () {
  const apiKeys = new MemoryApiKeyStore()
  const app = await build({ apiKeys, jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256' }] })
  return { app, apiKeys }
}
const call = async (app: Awaited<ReturnType<typeof build>>, key: string, url = '/me') =>
  app.inject({ url, headers: { authorization: `Bearer ${key}` } })

test('a valid API key authenticates as its label with its tags', async (t) => {
  const { app, apiKeys } = await setup()
  t.teardown(() => app.close())
  const { key } = await apiKeys.issue({ label: 'ci-bot', tags: 'reader,deploy' })
  for (let i = 0; i < 2; i++) {
    const res = await call(app, key)
    t.equal(res.statusCode, 200)
    t.same(res.json(), { identity: 'ci-bot', tags: ['reader', 'deploy'], backend: 'api_key' })
  }
  t.match((await apiKeys.list())[0], { lastUsedAt: /^\d{4}-/ }, 'last use is recorded')
})

test('revoked, expired, unknown and malformed keys are 401 invalid_token', async (t) => {
  const { app, apiKeys } = await setup()
  t.teardown(() => app.close())
  const { key: revoked, record } = await apiKeys.issue({ label: 'old' })
  await apiKeys.revoke(record.keyId)
  const expiresAt = new Date(Date.now() + 200)
  const { key: expiring } = await apiKeys.issue({ label: 'brief', expiresAt })
  await untilPast(expiresAt.getTime())
  const { key: good } = await apiKeys.issue({ label: 'good' })
  const cases: Array<[string, string, string]> = [
    ['revoked', revoked, 'The API key is unknown, revoked or expired'],
    ['expired', expiring, 'The API key is unknown, revoked or expired'],
    ['unknown id', `gak_0123456789abcdef_${good.slice(21)}`, 'The API key is unknown, revoked or expired'],
    ['wrong secret', good.slice(0, 21) + 'x'.repeat(43), 'The API key is unknown, revoked or expired'],
    ['malformed: short id', 'gak_abc_' + 'x'.repeat(43), 'Malformed API key'],
    ['malformed: upper-case id', 'gak_0123456789ABCDEF_' + 'x'.repeat(43), 'Malformed API key'],
    ['malformed: short secret', 'gak_0123456789abcdef_short', 'Malformed API key']
  ]
  for (const [what, key, message] of cases) {
    const res = await call(app, key, '/open')
    t.equal(res.statusCode, 401, what)
    t.same(res.json(), { statusCode: 401, code: 'GATEHOUSE_AUTH_INVALID_TOKEN', error: 'Unauthorized', message }, what)
    t.equal(res.headers['www-authenticate'], `Bearer realm="gatehouse", error="invalid_token", error_description="${message}"`)
  }
})

test('with no key store, a gak_ key is refused and never tried as a JWT', async (t) => {
  const app = await build({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256' }] })
  t.teardown(() => app.close())
  const res = await call(app, 'gak_0123456789abcdef_' + 'x'.repeat(43), '/open')
  t.equal(res.statusCode, 401)
  t.equal(res.json().message, 'API keys are not accepted here')
})

test('an apiKeys option that is not a store fails at boot', async (t) => {
  const { AuthCore } = await import('@fastify-gatehouse/auth')
  await t.rejects(AuthCore.create({ apiKeys: {} as never }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'apiKeys: must be an ApiKeyStore (with a verify method)' })
})

test('a key store of yours may answer verify with another library\'s promise (a thenable)', async (t) => {
  const inner = new MemoryApiKeyStore()
  const { key } = await inner.issue({ label: 'ci-bot', tags: 'reader' })
  // Not `instanceof Promise`: as a store built on another promise library answers.
  const thenable = <T>(value: T) => ({ then: (resolve: (v: T) => unknown) => { setImmediate(() => resolve(value)) } })
  const apiKeys = { ...inner, issue: inner.issue.bind(inner), revoke: inner.revoke.bind(inner), delete: inner.delete.bind(inner), list: inner.list.bind(inner), verify: (k: string) => thenable(inner.verify(k)) as never }
  const app = await build({ apiKeys })
  t.teardown(() => app.close())
  const res = await call(app, key)
  t.equal(res.statusCode, 200, 'not a 500')
  t.same(res.json(), { identity: 'ci-bot', tags: ['reader'], backend: 'api_key' })
  t.equal((await call(app, 'gak_0123456789abcdef_' + 'x'.repeat(43), '/open')).statusCode, 401, 'an unknown key is still a 401')
})
