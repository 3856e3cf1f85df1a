import { test, type Test } from 'tap'
import { sessionKey } from '@fastify-gatehouse/session'
import { RedisLockoutStore, RedisSessionStore } from '@fastify-gatehouse/redis'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from '../../redis/test/helpers/redis.js'
import { aliceStore, get, login, sessionCookie, startInstance, type Instance } from './helpers/redis-servers.js'
import { hangSignal, waitUntil } from '../../../test-helpers/wait.js'

const redis = await needRedis()

/**
 * Two instances, A and B, on two ports, sharing one Redis (one prefix for
 * sessions, one for lockout) and one user store (password sessions are
 * checked against it on every request).
 */
async function pair (t: Test, options: { idleTtl?: number } = {}): Promise<{ a: Instance, b: Instance, sessions: string, locks: string, client: RedisSessionStore['client'] }> {
  const sessions = testPrefix('sess')
  const locks = testPrefix('lock')
  const stores = [0, 1].map(() => ({
    sessionStore: new RedisSessionStore({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix: sessions }),
    lockoutStore: new RedisLockoutStore({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix: locks })
  }))
  const instances: Instance[] = []
  t.teardown(async () => {
    for (const instance of instances) await instance.server.close()
    for (const store of stores) { await store.sessionStore.close(); await store.lockoutStore.close() }
    await cleanPrefix(sessions)
    await cleanPrefix(locks)
  })
  const users = await aliceStore()
  for (const store of stores) {
    await store.sessionStore.ready()
    await store.lockoutStore.ready()
    instances.push(await startInstance({ ...store, ...options, users }))
  }
  t.not(instances[0]!.base, instances[1]!.base, 'two ports')
  // A's store's client, for looking at Redis directly.
  return { a: instances[0]!, b: instances[1]!, sessions, locks, client: stores[0]!.sessionStore.client }
}

test('two instances share sessions: login on A works on B; logout on B ends it on A', redis, async (t) => {
  const { a, b } = await pair(t)
  const signedIn = await login(a.base, 'alice', 'alice-pass')
  t.equal(signedIn.status, 200)
  const body = await signedIn.json() as { identity: string, session_id: string }
  t.equal(body.identity, 'alice')
  const cookie = sessionCookie(signedIn)
  t.equal(cookie, `session_id=${body.session_id}`)

  const onB = await get(b.base, '/me', { cookie })
  t.equal(onB.status, 200)
  t.same(await onB.json(), { auth: { identity: 'alice', tags: ['member'], backend: 'session' } }, 'B knows the session A created')
  t.same(await (await get(b.base, '/orders', { cookie })).json(), { for: 'alice' })

  const out = await fetch(`${b.base}/_server/logout`, { method: 'POST', headers: { cookie }, signal: hangSignal() })
  t.equal(out.status, 200)
  t.same(await out.json(), { status: 'ok' })
  t.match(out.headers.getSetCookie().join('\n'), /session_id=;.*Max-Age=0/i, 'B clears the cookie')

  t.same(await (await get(a.base, '/me', { cookie })).json(), { auth: null }, 'A no longer knows the session')
  const orders = await get(a.base, '/orders', { cookie })
  t.equal(orders.status, 403, 'the old cookie opens nothing on A')
})

test('failed logins spread over A and B lock the identity after maxAttempts in total', redis, async (t) => {
  const { a, b, locks, client } = await pair(t)
  const answers: number[] = []
  for (const base of [a.base, b.base, a.base]) answers.push((await login(base, 'alice', 'wrong')).status)
  t.same(answers, [401, 401, 401], 'three failures (maxAttempts 3): A, B, A')
  for (const [name, base] of [['B', b.base], ['A', a.base]] as const) {
    const locked = await login(base, 'alice', 'alice-pass')
    t.equal(locked.status, 429, `${name}: locked, even with the right password`)
    const retry = Number(locked.headers.get('retry-after'))
    t.ok(retry > 0 && retry <= 30, `${name}: Retry-After ${retry}`)
    t.match(await locked.json(), { statusCode: 429, code: 'GATEHOUSE_SERVER_LOCKED', message: /Too many failed sign-ins/ })
  }
  t.equal(await client.hget(`${locks}identity:alice`, 'f'), '3', 'one counter in Redis, counted by both instances')
})

test('concurrent failed logins on both instances are all counted', redis, async (t) => {
  const { a, b, locks, client } = await pair(t)
  const statuses = await Promise.all(Array.from({ length: 6 }, async (_v, i) => (await login(i % 2 === 0 ? a.base : b.base, 'alice', 'wrong')).status))
  t.equal(statuses.filter((s) => s === 401).length + statuses.filter((s) => s === 429).length, 6, `401s then 429s: ${statuses.join(',')}`)
  const counted = Number(await client.hget(`${locks}identity:alice`, 'f'))
  t.equal(counted, 3, 'exactly maxAttempts failures counted before the lock (the rest were refused while locked)')
  t.equal((await login(b.base, 'alice', 'alice-pass')).status, 429)
})

test('a session expires on both instances (idle TTL enforced by Redis)', redis, async (t) => {
  const { a, b, sessions, client } = await pair(t, { idleTtl: 1 })
  const signedIn = await login(a.base, 'alice', 'alice-pass')
  t.equal(signedIn.status, 200)
  const cookie = sessionCookie(signedIn)
  const key = `${sessions}${sessionKey(cookie.slice('session_id='.length))}`
  t.same(await (await get(b.base, '/me', { cookie })).json(), { auth: { identity: 'alice', tags: ['member'], backend: 'session' } })
  const ttl = await client.pttl(key)
  t.ok(ttl > 0 && ttl <= 1000, `Redis holds the record for at most the idle TTL (${ttl} ms)`)
  const dropped = await waitUntil(async () => await client.exists(key) === 0, { everyMs: 50, what: 'Redis to drop the record' })
  t.ok(dropped >= ttl - 50, `Redis dropped the record after its TTL (${dropped} ms)`)
  t.same(await (await get(a.base, '/me', { cookie })).json(), { auth: null }, 'expired on A')
  t.same(await (await get(b.base, '/me', { cookie })).json(), { auth: null }, 'expired on B')
  t.equal((await get(b.base, '/orders', { cookie })).status, 403)
})
