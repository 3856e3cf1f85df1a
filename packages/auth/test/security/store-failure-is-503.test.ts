// Issue 25 review, item 6: a UserStore or ApiKeyStore that threw a plain
// error (a custom store's ECONNREFUSED) was a hidden 500, while a lockout
// store's failure was a coded 503. A store's failure is now 503
// GATEHOUSE_AUTH_STORE_UNAVAILABLE with Retry-After; the app's own
// functions (basic.validate, bearer.auth) keep 500 GATEHOUSE_AUTH_CALLBACK_FAILED (D-AUTH-78).
import { test } from 'tap'
import Fastify, { type FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { middlewareChain } from '@fastify-gatehouse/core'
import { MemoryUserStore, type ApiKeyStore, type AuthOptions, type UserStore } from '@fastify-gatehouse/auth'
import { basicHeader, components } from '../helpers/build.js'

const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), { code: 'ECONNREFUSED' })
const KEY = `gak_00000000000000a1_${'k'.repeat(43)}`

async function app (options: AuthOptions) {
  const lines: string[] = []
  const server = Fastify({ loggerInstance: pino({ level: 'trace' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger })
  await middlewareChain(server, { authMiddleware: options as Record<string, unknown> }, { components })
  server.get('/me', { authRule: 'ops' }, async (req) => ({ identity: req.scope.auth?.identity }))
  await server.ready()
  return { server, lines }
}

test('a user store or an API key store that throws: 503 GATEHOUSE_AUTH_STORE_UNAVAILABLE with Retry-After, sync or async', async (t) => {
  const failing: Array<[string, AuthOptions, string, string]> = [
    ['UserStore.verify rejects', { basic: { users: { verify: async () => { throw refused() }, standing: async () => null } as unknown as UserStore } }, basicHeader('alice', 'pw-1'), 'UserStore.verify threw Error ECONNREFUSED'],
    ['UserStore.verify throws', { basic: { users: { verify: () => { throw refused() }, standing: async () => null } as unknown as UserStore } }, basicHeader('alice', 'pw-1'), 'UserStore.verify threw Error ECONNREFUSED'],
    ['ApiKeyStore.verify rejects', { apiKeys: { verify: async () => { throw refused() } } as unknown as ApiKeyStore }, `Bearer ${KEY}`, 'ApiKeyStore.verify threw Error ECONNREFUSED'],
    ['ApiKeyStore.verify throws', { apiKeys: { verify: () => { throw refused() } } as unknown as ApiKeyStore }, `Bearer ${KEY}`, 'ApiKeyStore.verify threw Error ECONNREFUSED']
  ]
  for (const [what, options, authorization, logged] of failing) {
    const { server, lines } = await app(options)
    t.teardown(() => server.close())
    const res = await server.inject({ url: '/me', headers: { authorization } })
    t.equal(res.statusCode, 503, what)
    t.same(res.json(), { statusCode: 503, code: 'GATEHOUSE_AUTH_STORE_UNAVAILABLE', error: 'Service Unavailable', message: 'Cannot check the credentials now: the store is unavailable; try again shortly' }, what)
    t.equal(res.headers['retry-after'], '5', what)
    t.match(lines.join('\n'), logged, `${what}: the log names the call and the facts`)
    t.notMatch(lines.join('\n'), /127\.0\.0\.1:5433/, `${what}: not the message`)
  }
})

test('UserStore.standing that throws on a cached credential: the same 503', async (t) => {
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'wonderland-1', tags: 'ops' })
  let down = false
  const store = { verify: async (i: string, p: string) => await users.verify(i, p), standing: async (i: string) => { if (down) throw refused(); return await users.standing(i) } } as unknown as UserStore
  const { server } = await app({ basic: { users: store } })
  t.teardown(() => server.close())
  const header = { authorization: basicHeader('alice', 'wonderland-1') }
  t.equal((await server.inject({ url: '/me', headers: header })).statusCode, 200)
  down = true
  const res = await server.inject({ url: '/me', headers: header })
  t.equal(res.statusCode, 503)
  t.equal(res.json().code, 'GATEHOUSE_AUTH_STORE_UNAVAILABLE')
  t.equal(res.headers['retry-after'], '5')
})

test('the app\'s own functions that throw stay 500 GATEHOUSE_AUTH_CALLBACK_FAILED', async (t) => {
  const own: Array<[string, AuthOptions, string]> = [
    ['basic.validate', { basic: { validate: () => { throw refused() } } }, basicHeader('alice', 'pw-1')],
    ['bearer.auth', { bearer: { auth: async () => { throw refused() } } }, 'Bearer some-static-token-1']
  ]
  for (const [what, options, authorization] of own) {
    const { server, lines } = await app(options)
    t.teardown(() => server.close())
    const res = await server.inject({ url: '/me', headers: { authorization } })
    t.equal(res.statusCode, 500, what)
    t.equal(res.json().code, 'GATEHOUSE_ERRORS_INTERNAL', `${what}: a plain 500 to the client`)
    t.match(lines.join('\n'), '"code":"GATEHOUSE_AUTH_CALLBACK_FAILED"', `${what}: the log has the code`)
    t.match(lines.join('\n'), `${what} threw Error ECONNREFUSED`)
    t.equal(res.headers['retry-after'], undefined, what)
  }
})
