import { test } from 'tap'
import { Redis } from 'ioredis'
import { CLAIM_TTL_MS } from '@fastify-gatehouse/auth'
import { RedisLockoutStore, LOCKOUT_PREFIX } from '@fastify-gatehouse/redis'
import { lockoutStoreConformance } from '../../../test-helpers/conformance/lockout.js'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from './helpers/redis.js'

const redis = await needRedis()
const policy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }

test('RedisLockoutStore conformance', redis, async (t) => {
  const stores: RedisLockoutStore[] = []
  t.teardown(async () => {
    for (const store of stores) { await store.close(); await cleanPrefix(store.prefix) }
  })
  await lockoutStoreConformance(t, async () => {
    const store = await RedisLockoutStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix: testPrefix('lock') })
    stores.push(store)
    return store
  })
})

test('RedisLockoutStore: two stores (two instances) on one Redis share the claims of concurrent attempts', redis, async (t) => {
  const prefix = testPrefix('lock')
  const a = await RedisLockoutStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS }, prefix)
  const client = new Redis(REDIS_URL)
  const b = await RedisLockoutStore.connect({ client }, prefix)
  t.teardown(async () => { await a.close(); await b.close(); client.disconnect(); await cleanPrefix(prefix) })
  const now = Date.now()
  const waits = await Promise.all(Array.from({ length: 40 }, async (_v, i) => await (i % 2 === 0 ? a : b).claim('identity:alice', policy, now)))
  t.equal(waits.filter((w) => w === 0).length, 5, 'five of forty claims, over both instances, go ahead')
  t.equal((await client.hget(`${prefix}identity:alice`, 'q'))?.split(',').length, 5, 'five in flight, in one hash')
  const locks = await Promise.all(Array.from({ length: 5 }, async (_v, i) => await (i % 2 === 0 ? a : b).recordFailure('identity:alice', policy, now)))
  t.equal(locks.filter((s) => s === 30).length >= 1, true, 'the fifth failure locks')
  t.equal(await a.lockedFor('identity:alice', now), 30)
  t.equal(await b.lockedFor('identity:alice', now), 30)
  t.same(await client.hmget(`${prefix}identity:alice`, 'f', 'q'), ['5', ''], 'all five counted, none left in flight')
  t.equal(b.prefix, prefix)
  t.equal((await RedisLockoutStore.connect({ client })).prefix, LOCKOUT_PREFIX)
  await b.close()
  t.equal(await client.ping(), 'PONG', 'close() leaves a client it did not open connected')
})

test('RedisLockoutStore: state expires in Redis once it no longer matters', redis, async (t) => {
  const prefix = testPrefix('lock')
  const store = await RedisLockoutStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  const client = new Redis(REDIS_URL)
  t.teardown(async () => { await store.close(); client.disconnect(); await cleanPrefix(prefix) })
  const now = Date.now()
  // A TTL read back has run down by the time since it was set: each check
  // allows for exactly the time its writes and read took, however slow.
  const ttlOf = async (key: string, write: () => Promise<unknown>): Promise<{ ttl: number, elapsed: number }> => {
    const start = Date.now()
    await write()
    const ttl = await client.pttl(`${prefix}${key}`)
    return { ttl, elapsed: Date.now() - start }
  }
  const quick = { maxAttempts: 5, backoff: 30, resetAfter: 120 }
  const k = await ttlOf('k', async () => { await store.claim('k', quick, now); await store.recordFailure('k', quick, now) })
  t.ok(k.ttl + k.elapsed > 119_000 && k.ttl <= 121_000, `unlocked: kept for resetAfter (${k.ttl} ms, read ${k.elapsed} ms after)`)
  const pending = await ttlOf('pending', async () => await store.claim('pending', { ...quick, resetAfter: 1 }, now))
  t.ok(pending.ttl + pending.elapsed > CLAIM_TTL_MS - 1000 && pending.ttl <= CLAIM_TTL_MS + 1000, `a claim in flight: kept as long as it holds its place (${pending.ttl} ms)`)
  const steep = { maxAttempts: 1, backoff: 7200, resetAfter: 60 }
  const locked = await ttlOf('long', async () => { await store.claim('long', steep, now); await store.recordFailure('long', steep, now) })
  t.ok(locked.ttl + locked.elapsed > 7_259_000 && locked.ttl <= 7_261_000, `locked: kept for the lock and resetAfter after it (${locked.ttl} ms)`)
  await store.reset('k')
  t.equal(await client.exists(`${prefix}k`), 0, 'reset deletes')
  await store.refund('pending', quick, now)
  t.equal(await client.exists(`${prefix}pending`), 0, 'a refund that leaves nothing to remember deletes')
})

test('RedisLockoutStore: bad options are boot errors', async (t) => {
  t.throws(() => new RedisLockoutStore({ url: 'redis//nohost' }), { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS', message: /RedisLockoutStore url/ })
  t.throws(() => new RedisLockoutStore(undefined as never), { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS' })
})
