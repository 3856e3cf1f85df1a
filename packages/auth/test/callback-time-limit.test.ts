import { test, type Test } from 'tap'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { SignJWT } from 'jose'
import pino from 'pino'
import { middlewareChain } from '@fastify-gatehouse/core'
import { AuthCore, MemoryLockoutStore, MemoryUserStore, type AuthOptions, type UserStore } from '@fastify-gatehouse/auth'
import { faulty, lockoutFaultCases, type Faults } from '../../../test-helpers/faulty.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { basicHeader, components } from './helpers/build.js'

// Every call of the auth component into code it does not own (a function of
// the options, a store) has `callbackTimeout` to answer; past it the request
// gets 503 GATEHOUSE_AUTH_CALLBACK_TIMEOUT and gives back its
// basicConcurrency slot. Over real sockets, two instances sharing the stores.
// The limit is short here (500 ms; room for a real check on a loaded machine): the tests assert what is answered and
// that slots come back, never how fast.

const LIMIT = 0.5
const FAST = { N: 1024, r: 8, p: 1 }
const never = new Promise<never>(() => {})

interface Instance { app: FastifyInstance, url: string, lines: string[] }

async function instance (t: Test, options: AuthOptions): Promise<Instance> {
  const lines: string[] = []
  const app = Fastify({ loggerInstance: pino({ level: 'trace' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger })
  t.teardown(() => app.close())
  await middlewareChain(app, { authMiddleware: options as Record<string, unknown> }, { components })
  app.get('/me', { authRule: 'admin' }, async (req) => ({ identity: req.scope.auth?.identity }))
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, url, lines }
}

async function get (at: Instance, authorization: string, signal?: AbortSignal): Promise<{ status: number, body: Record<string, unknown>, retryAfter: string | null }> {
  const res = await fetch(`${at.url}/me`, { headers: { authorization }, signal })
  return { status: res.status, body: await res.json() as Record<string, unknown>, retryAfter: res.headers.get('retry-after') }
}

const timeouts = (at: Instance): number => at.lines.filter((l) => l.includes('GATEHOUSE_AUTH_CALLBACK_TIMEOUT')).length

test('16 hung basic.validate calls on each of two instances: each a 503 at the limit, clients gone or not; then fresh sign-ins pass on both', async (t) => {
  const hung: Array<{ resolve: (v: string) => void, reject: (e: Error) => void }> = []
  let calls = 0
  const validate = async (identity: string, password: string): Promise<string | null> => {
    calls++
    if (password.startsWith('hang')) return await new Promise<string>((resolve, reject) => { hung.push({ resolve, reject }) })
    return identity === 'alice' && password.startsWith('right') ? 'admin' : null
  }
  const lockout = new MemoryLockoutStore()
  const options: AuthOptions = { basic: { validate }, basicConcurrency: 16, callbackTimeout: LIMIT, basicLockout: { store: lockout, maxAttempts: 1000 } }
  const a = await instance(t, options)
  const b = await instance(t, options)

  // A: the clients wait and are told.
  const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => get(a, basicHeader(`user${i}`, `hang-${i}`))))
  t.same([...new Set(answers.map((r) => r.status))], [503], 'every hung check answers 503')
  t.same([...new Set(answers.map((r) => r.body.code))], ['GATEHOUSE_AUTH_CALLBACK_TIMEOUT'])
  t.same([...new Set(answers.map((r) => r.retryAfter))], ['5'])
  // B: the clients leave before the answer.
  const controllers = Array.from({ length: 16 }, () => new AbortController())
  const left = controllers.map((c, i) => get(b, basicHeader(`user${i}`, `hang-${i}`), c.signal).catch(() => 'gone'))
  await waitUntil(() => hung.length === 32, { what: '16 checks in flight on B' })
  for (const c of controllers) c.abort()
  // How many left before their answer depends on the machine's speed: not asserted.
  t.comment(`${(await Promise.all(left)).filter((r) => r === 'gone').length} of 16 clients left before their answer`)
  await waitUntil(() => timeouts(b) >= 16, { what: 'the 16 abandoned checks given up on' })

  for (const at of [a, b]) {
    const fresh = await Promise.all(Array.from({ length: 16 }, (_, i) => get(at, basicHeader('alice', `right-${i}`))))
    t.same([...new Set(fresh.map((r) => r.status))], [200], 'every slot is free again: 16 uncached sign-ins at once pass')
  }

  // The late answers (a grant, a rejection quoting the password) change nothing and throw nowhere.
  const before = calls
  hung.forEach((h, i) => { if (i % 2 === 0) h.resolve('admin'); else h.reject(new Error(`late for hang-${i}`)) })
  await new Promise((resolve) => setImmediate(resolve))
  const again = await get(a, basicHeader('user0', 'hang-0'))
  t.equal(again.status, 503, 'a late grant was not cached: the credential is checked again')
  t.equal(calls, before + 1)
  t.notOk([...a.lines, ...b.lines].some((l) => l.includes('late for')), 'a late rejection is not logged')
})

test('a hung UserStore.verify or standing: 503 at the limit on both instances sharing the store, and the slot comes back', async (t) => {
  const users = new MemoryUserStore({ scrypt: FAST })
  await users.add('alice', { password: 'right-password-1', tags: 'admin' })
  await users.add('stuck', { password: 'stuck-password-1', tags: 'admin' })
  let standingHangs = false
  const store = new Proxy(users, {
    get (target, key) {
      if (key === 'verify') return async (identity: string, password: string) => identity === 'stuck' ? await never : await target.verify(identity, password)
      if (key === 'standing') return async (identity: string) => standingHangs ? await never : await target.standing(identity)
      const value = Reflect.get(target, key, target) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    }
  }) as UserStore
  const options: AuthOptions = { basic: { users: store }, basicConcurrency: 1, callbackTimeout: LIMIT }
  const a = await instance(t, options)
  const b = await instance(t, options)

  for (const at of [a, b]) {
    const stuck = await get(at, basicHeader('stuck', 'stuck-password-1'))
    t.same([stuck.status, stuck.body.code], [503, 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT'], 'a hung verify')
    // basicConcurrency 1: a slot still held would make this a 503 GATEHOUSE_AUTH_BUSY.
    const alice = await get(at, basicHeader('alice', 'right-password-1'))
    t.same([alice.status, alice.body.identity], [200, 'alice'], 'the one slot is free again')
  }
  standingHangs = true
  for (const at of [a, b]) {
    const cached = await get(at, basicHeader('alice', 'right-password-1'))
    t.same([cached.status, cached.body.code], [503, 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT'], 'a cached credential whose standing hangs')
  }
  standingHangs = false
  t.equal((await get(a, basicHeader('alice', 'right-password-1'))).status, 200, 'and passes once the store answers')
  t.match(a.lines.join('\n'), 'UserStore.standing gave no answer within 500 ms', 'the log names the call')
  t.match(a.lines.join('\n'), 'UserStore.verify gave no answer within 500 ms')
})

test('the lockout store: a hung call is a 503 at the limit, a failing one a coded 503, before or after the password check', async (t) => {
  const users = new MemoryUserStore({ scrypt: FAST })
  await users.add('alice', { password: 'right-password-1', tags: 'admin' })
  const faults: Faults = {}
  const shared = faulty(new MemoryLockoutStore(), faults)
  const options: AuthOptions = { basic: { users }, basicConcurrency: 1, callbackTimeout: LIMIT, basicLockout: { store: shared, maxAttempts: 100 }, basicCache: { max: 0 } }
  const a = await instance(t, options)
  const b = await instance(t, options)
  const cases = lockoutFaultCases('right-password-1', 'wrong-password-1')
  for (const [what, fault, password, code] of cases) {
    for (const at of [a, b]) {
      Object.assign(faults, fault)
      const res = await get(at, basicHeader('alice', password))
      t.same([res.status, res.body.code, res.retryAfter], [503, code, '5'], what)
      for (const key of Object.keys(faults)) delete faults[key]
      const after = await get(at, basicHeader('alice', 'right-password-1'))
      t.equal(after.status, 200, `${what}: the slot is free and the store works again`)
    }
  }
  const logged = [...a.lines, ...b.lines].join('\n')
  t.match(logged, 'LockoutStore.reset threw Error')
  t.notMatch(logged, 'store down at', 'never the thrown message (it quotes the keys)')
})

test('a hung bearer.auth, ApiKeyStore.verify, key resolver or isRevoked: 503 at the limit (the verifiers\' hooks under callbackTimeout, not a fixed 5 s)', async (t) => {
  const a = await instance(t, {
    bearer: { auth: async (token: string) => token === 'hang' ? await never : token === 'ok' ? 'admin' : null },
    apiKeys: { verify: async () => await never } as never,
    callbackTimeout: LIMIT
  })
  const bearer = await get(a, 'Bearer hang')
  t.same([bearer.status, bearer.body.code], [503, 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT'], 'bearer.auth')
  t.equal((await get(a, 'Bearer ok')).status, 200)
  const key = await get(a, `Bearer gak_00000000000000aa_${'Kq3'.repeat(14)}x`)
  t.same([key.status, key.body.code], [503, 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT'], 'ApiKeyStore.verify')
  t.match(a.lines.join('\n'), 'bearer.auth gave no answer within 500 ms')

  // The verifiers' hooks take the same limit (their codes are their own).
  const core = await AuthCore.create({
    callbackTimeout: LIMIT,
    jwt: [{ name: 'k', algorithm: 'HS256', key: async () => await never }]
  })
  const token = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.c2ln`
  await t.rejects(Promise.resolve().then(() => core.authenticate(`Bearer ${token}`)), { statusCode: 503, code: 'GATEHOUSE_AUTH_KEYS_UNAVAILABLE' }, 'a key resolver')
  const secret = 'a-very-long-shared-secret-of-32+bytes!'
  const revoking = await AuthCore.create({
    callbackTimeout: LIMIT,
    jwt: [{ name: 'r', algorithm: 'HS256', secret, isRevoked: async () => await never }]
  })
  const signed = await new SignJWT({ sub: 'x', exp: Math.floor(Date.now() / 1000) + 600 }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret))
  await t.rejects(Promise.resolve().then(() => revoking.authenticate(`Bearer ${signed}`)), { statusCode: 503, code: 'GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE' }, 'isRevoked')
})

test('callbackTimeout is checked at boot', async (t) => {
  for (const bad of [0, -1, 301, '5', Number.NaN]) {
    await t.rejects(AuthCore.create({ callbackTimeout: bad as never }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^callbackTimeout: must be a number of seconds from 0.001 to 300/ }, String(bad))
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(middlewareChain(app, { authMiddleware: { callbackTimeout: 0 } }, { components }).then(() => app.ready()), /callbackTimeout/)
})
