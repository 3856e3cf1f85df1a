// Issue 13, item 1: lockout bypassed by concurrent attempts. Thirty wrong
// passwords sent at once were all checked (the check came before the count),
// with the memory store and with RedisLockoutStore on two instances. Every
// password check here waits at a gate until the others have arrived, so the
// attempts overlap for certain: with the old check-then-count every one of
// them reaches the gate and is checked; now at most maxAttempts are.
import { test, type Test } from 'tap'
import type { LockoutStore } from '@fastify-gatehouse/auth'
import { RedisLockoutStore, RedisSessionStore } from '@fastify-gatehouse/redis'
import { AppServer } from '@fastify-gatehouse/server'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from '../../../redis/test/helpers/redis.js'
import { GatedUsers, until } from '../helpers/gated-users.js'
import { login } from '../helpers/redis-servers.js'

const MAX = 5

async function instance (t: Test, users: GatedUsers, stores: { lockout?: LockoutStore, session?: RedisSessionStore } = {}): Promise<string> {
  const server = new AppServer({
    logger: false,
    users,
    ...(stores.session === undefined ? {} : { session: { store: stores.session } }),
    serverApp: { login: { maxAttempts: MAX, backoff: 30, ...(stores.lockout === undefined ? {} : { store: stores.lockout }) } }
  })
  t.teardown(() => server.close())
  return await server.serve('127.0.0.1', 0)
}

/**
 * Sends `count` logins for alice at once, spread over `bases`; the last one
 * carries the right password. The gate opens once every answer not waiting
 * at it has come back (or, with the old code, once all are waiting there).
 */
async function burst (t: Test, bases: string[], gates: GatedUsers[], count: number): Promise<number[]> {
  let answered = 0
  const sent = Array.from({ length: count }, async (_v, i) => {
    const response = await login(bases[i % bases.length]!, 'alice', i === count - 1 ? 'alice-pass' : 'wrong')
    answered++
    return response.status
  })
  const waiting = () => gates.reduce((n, g) => n + g.waiting, 0)
  t.ok(await until(() => waiting() > 0 && waiting() + answered === count), 'every attempt was answered or is being checked')
  for (const gate of gates) gate.open()
  return await Promise.all(sent)
}

test('thirty concurrent logins for one identity: at most maxAttempts password checks (memory store, real sockets)', async (t) => {
  const users = await GatedUsers.with({ alice: 'alice-pass' })
  const base = await instance(t, users)
  const statuses = await burst(t, [base], [users], 30)
  t.ok(users.checks <= MAX, `${users.checks} password checks for 30 attempts (at most ${MAX})`)
  t.equal(statuses.filter((s) => s === 429).length, 30 - users.checks, 'every attempt not checked was refused with 429')
  t.equal(statuses.filter((s) => s === 200).length, statuses[29] === 200 ? 1 : 0, 'the right password signs in only if it was among the checked')
  const after = await login(base, 'alice', 'alice-pass')
  if (statuses[29] !== 200) {
    t.equal(after.status, 429, 'the identity is locked now, the right password included')
    t.match(await after.json(), { statusCode: 429, code: 'GATEHOUSE_SERVER_LOCKED' })
    t.ok(Number(after.headers.get('retry-after')) > 0, 'with Retry-After')
  }
})

test('a hundred concurrent logins: the count holds at any size', async (t) => {
  const users = await GatedUsers.with({ alice: 'alice-pass' })
  const base = await instance(t, users)
  const statuses = await burst(t, [base], [users], 100)
  t.ok(users.checks <= MAX, `${users.checks} checks for 100 attempts`)
  t.equal(statuses.filter((s) => s === 429).length, 100 - users.checks)
})

const redis = await needRedis()

test('two instances sharing RedisLockoutStore: forty concurrent logins over both, at most maxAttempts checks in all', redis, async (t) => {
  const locks = testPrefix('lock')
  const sessions = testPrefix('sess')
  const gates = [await GatedUsers.with({ alice: 'alice-pass' }), await GatedUsers.with({ alice: 'alice-pass' })]
  const stores = gates.map(() => ({ lockout: new RedisLockoutStore({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix: locks }), session: new RedisSessionStore({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix: sessions }) }))
  t.teardown(async () => {
    for (const s of stores) { await s.lockout.close(); await s.session.close() }
    await cleanPrefix(locks)
    await cleanPrefix(sessions)
  })
  const bases: string[] = []
  for (const [i, gate] of gates.entries()) {
    await stores[i]!.lockout.ready()
    bases.push(await instance(t, gate, stores[i]!))
  }
  const statuses = await burst(t, bases, gates, 40)
  const checks = gates[0]!.checks + gates[1]!.checks
  t.ok(checks <= MAX, `${checks} checks over two instances for 40 attempts (A ${gates[0]!.checks}, B ${gates[1]!.checks})`)
  t.equal(statuses.filter((s) => s === 429).length, 40 - checks, 'the rest refused')
  if (statuses[39] !== 200) {
    for (const base of bases) t.equal((await login(base, 'alice', 'alice-pass')).status, 429, 'locked on both instances')
  }
  const client = stores[0]!.lockout.client
  t.equal(await client.hget(`${locks}identity:alice`, 'q'), '', 'no claim left in flight')
})
