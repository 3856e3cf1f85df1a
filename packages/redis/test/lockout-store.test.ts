import { test } from 'tap'
import { Redis } from 'ioredis'
import { RedisLockoutStore, LOCKOUT_PREFIX } from '@gatehouse/redis'
import { lockoutStoreConformance } from '../../auth/test/helpers/lockout-store-conformance.js'
import { cleanPrefix, needRedis, REDIS_URL, testPrefix } from './helpers/redis.js'

const redis = await needRedis()
const policy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }

test('RedisLockoutStore conformance', redis, async (t) => {
  const stores: RedisLockoutStore[] = []
  t.teardown(async () => {
    for (const store of stores) { await store.close(); await cleanPrefix(store.prefix) }
  })
  await lockoutStoreConformance(t, async () => {
    const store = new RedisLockoutStore({ url: REDIS_URL, prefix: testPrefix('lock') })
    stores.push(store)
    await store.ready()
    return store
  })
})

test('RedisLockoutStore: two stores (two instances) on one Redis count concurrent failures together', redis, async (t) => {
  const prefix = testPrefix('lock')
  const a = new RedisLockoutStore({ url: REDIS_URL }, prefix)
  const client = new Redis(REDIS_URL)
  const b = new RedisLockoutStore({ client }, prefix)
  t.teardown(async () => { await a.close(); await b.close(); client.disconnect(); await cleanPrefix(prefix) })
  await a.ready()
  const now = Date.now()
  const strict = { maxAttempts: 40, backoff: 30, resetAfter: 3600 }
  const results = await Promise.all(Array.from({ length: 40 }, async (_v, i) => await (i % 2 === 0 ? a : b).fail('identity:alice', strict, now)))
  t.equal(results.filter((s) => s > 0).length, 1, 'the 40th failure, whichever instance saw it, locks')
  t.equal(await a.lockedFor('identity:alice', now), 30)
  t.equal(await b.lockedFor('identity:alice', now), 30)
  t.equal(await client.hget(`${prefix}identity:alice`, 'f'), '40', 'all 40 counted')
  t.equal(b.prefix, prefix)
  t.equal(new RedisLockoutStore({ client }).prefix, LOCKOUT_PREFIX)
  await b.close()
  t.equal(await client.ping(), 'PONG', 'close() leaves a client it did not open connected')
})

test('RedisLockoutStore: state expires in Redis once it no longer matters', redis, async (t) => {
  const prefix = testPrefix('lock')
  const store = new RedisLockoutStore({ url: REDIS_URL, prefix })
  const client = new Redis(REDIS_URL)
  t.teardown(async () => { await store.close(); client.disconnect(); await cleanPrefix(prefix) })
  await store.ready()
  const now = Date.now()
  await store.fail('k', { maxAttempts: 5, backoff: 30, resetAfter: 60 }, now)
  const ttl = await client.pttl(`${prefix}k`)
  t.ok(ttl > 59_000 && ttl <= 61_000, `unlocked: kept for resetAfter (${ttl} ms)`)
  await store.fail('long', { maxAttempts: 1, backoff: 7200, resetAfter: 60 }, now)
  const locked = await client.pttl(`${prefix}long`)
  t.ok(locked > 7_199_000 && locked <= 7_201_000, `locked: kept for the lock (${locked} ms)`)
  await store.reset('k')
  t.equal(await client.exists(`${prefix}k`), 0, 'reset deletes')
  t.equal(await store.fail('short', policy, now), 0)
})

test('RedisLockoutStore: bad options are boot errors', async (t) => {
  t.throws(() => new RedisLockoutStore({ url: 'redis//nohost' }), { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS', message: /RedisLockoutStore url/ })
  t.throws(() => new RedisLockoutStore(undefined as never), { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS' })
})
