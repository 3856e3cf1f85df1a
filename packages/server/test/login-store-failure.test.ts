// Issue 25 review, item 6: a UserStore that throws a plain error (a custom
// store's ECONNREFUSED) on POST /_server/login was a bare 500; it is now the
// auth component's 503 GATEHOUSE_AUTH_STORE_UNAVAILABLE with Retry-After, as
// a lockout store's failure is (D-AUTH-78). Over a real socket. The long
// user name of item 1 is counted under a bounded key here too (D-AUTH-77).
import { test } from 'tap'
import type { FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { identityKey, MemoryLockoutStore, type UserStore } from '@fastify-gatehouse/auth'
import { AppServer } from '@fastify-gatehouse/server'
import { accountUsers } from './helpers/account.js'

test('POST /_server/login: a UserStore that throws is 503 GATEHOUSE_AUTH_STORE_UNAVAILABLE, not a 500; the lockout key is the shared one', async (t) => {
  const real = await accountUsers()
  let down = true
  const users = {
    verify: async (identity: string, password: string) => { if (down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), { code: 'ECONNREFUSED' }); return await real.verify(identity, password) },
    standing: async (identity: string) => await real.standing(identity)
  } as unknown as UserStore
  const lines: string[] = []
  const lockout = new MemoryLockoutStore()
  const keys = new Set<string>()
  const claim = lockout.claim.bind(lockout)
  lockout.claim = (key, policy, now) => { keys.add(key); return claim(key, policy, now) }
  const server = new AppServer({
    logger: pino({ level: 'trace' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger,
    users,
    serverApp: { login: { store: lockout } }
  })
  t.teardown(() => server.close())
  const base = await server.serve('127.0.0.1', 0)
  const login = async (identity: string, password: string): Promise<Response> =>
    await fetch(`${base}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ identity, password }) })
  const res = await login('alice', 'alice-pass')
  t.equal(res.status, 503)
  t.equal(res.headers.get('retry-after'), '5')
  t.same(await res.json(), { statusCode: 503, code: 'GATEHOUSE_AUTH_STORE_UNAVAILABLE', error: 'Service Unavailable', message: 'Cannot check the credentials now: the store is unavailable; try again shortly' })
  t.match(lines.join('\n'), 'UserStore.verify threw Error ECONNREFUSED')
  t.notMatch(lines.join('\n'), /alice-pass|5433/)
  t.ok(keys.has(identityKey('alice')), 'the identity key is auth\'s identityKey')
  down = false
  t.equal((await login('alice', 'alice-pass')).status, 200, 'back up: the sign-in passes')
})
