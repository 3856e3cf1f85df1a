import { test } from 'tap'
import { Redis } from 'ioredis'
import { RedisSessionStore, SESSION_PREFIX } from '@fastify-gatehouse/redis'
import { sessionStoreConformance } from '../../../test-helpers/conformance/sessions.js'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from './helpers/redis.js'
import { untilPast } from '../../../test-helpers/wait.js'

const redis = await needRedis()
const record = (identity: string | null, expiresAt: number) => ({ identity, tags: identity === null ? [] : ['t'], data: {}, createdAt: Date.now(), expiresAt, version: 1, via: null, stamp: null })

test('RedisSessionStore conformance (url: the store opens and closes its client)', redis, async (t) => {
  const stores: RedisSessionStore[] = []
  const prefixes: string[] = []
  t.teardown(async () => {
    for (const store of stores) await store.close()
    for (const prefix of prefixes) await cleanPrefix(prefix)
  })
  await sessionStoreConformance(t, async () => {
    const prefix = testPrefix('sess')
    prefixes.push(prefix)
    const store = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
    stores.push(store)
    return store
  })
})

test('RedisSessionStore conformance (client: yours, never closed by the store)', redis, async (t) => {
  const client = new Redis(REDIS_URL)
  const prefixes: string[] = []
  t.teardown(async () => {
    for (const prefix of prefixes) await cleanPrefix(prefix)
    client.disconnect()
  })
  await sessionStoreConformance(t, async () => {
    const prefix = testPrefix('sess')
    prefixes.push(prefix)
    return await RedisSessionStore.connect({ client }, prefix)
  })
  const store = await RedisSessionStore.connect({ client })
  t.equal(store.prefix, SESSION_PREFIX, 'the default prefix')
  await store.close()
  t.equal(await client.ping(), 'PONG', 'close() leaves a client it did not open connected')
})

test('RedisSessionStore keeps records as Redis sees them: hashed keys, Redis-enforced TTL, an expiring identity index', redis, async (t) => {
  const prefix = testPrefix('sess')
  const store = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  const client = new Redis(REDIS_URL)
  t.teardown(async () => { await store.close(); client.disconnect(); await cleanPrefix(prefix) })
  const key = 'q1Bx0rV1mZ4pkmkQe3m1gT2gkqJ0TjvHkzv1Ew4Y3ns'
  const now = Date.now()
  const written = { identity: 'alice', tags: ['ops'], data: { cart: [] }, createdAt: now, expiresAt: now + 60_000, version: 1, via: 'password', stamp: 'st' }
  t.equal(await store.set(key, written, null), 'written')
  t.same(await store.get(key), written, 'round trip, empty arrays kept')
  t.equal(await client.hget(`${prefix}${key}`, 'v'), '1', 'the version is a field of its own, for the write script')
  // An OIDC sign-in's auth_time, and an unknown sign-in time, survive the round trip (D-OIDC-12).
  for (const authenticatedAt of [now - 3_600_000, null]) {
    const oidc = { ...written, via: 'oidc:corp', stamp: null, authenticatedAt }
    t.equal(await store.set('oidc', oidc, null), 'written')
    t.same(await store.get('oidc'), oidc, `authenticatedAt ${String(authenticatedAt)} kept`)
    await store.destroy('oidc')
  }
  t.same((await client.keys(`${prefix}*`)).sort(), [`${prefix}identity:alice`, `${prefix}${key}`])
  const recordExpiry = await client.pexpiretime(`${prefix}${key}`)
  t.equal(recordExpiry, now + 60_000, 'the record expires in Redis at expiresAt (PEXPIREAT)')
  t.equal(await client.type(`${prefix}identity:alice`), 'zset', 'the identity index is a sorted set')
  t.equal(await client.zscore(`${prefix}identity:alice`, key), String(now + 60_000), 'scored by the session\'s expiresAt')
  t.ok(await client.pexpiretime(`${prefix}identity:alice`) >= recordExpiry, 'the index expires no earlier than its member')
  await store.touch(key, now + 120_000)
  t.equal(await client.pexpiretime(`${prefix}${key}`), now + 120_000, 'touch moves the Redis expiry')
  t.equal((await store.get(key))?.expiresAt, now + 120_000, 'and the stored deadline')
  t.equal(await client.zscore(`${prefix}identity:alice`, key), String(now + 120_000), 'and the member\'s score')
  t.ok(await client.pexpiretime(`${prefix}identity:alice`) >= now + 120_000, 'and the index follows')
  await store.touch(key, now + 90_000)
  t.equal(await client.zscore(`${prefix}identity:alice`, key), String(now + 120_000), 'a touch never moves the score earlier')
  await store.set('anon', record(null, now + 60_000), null)
  t.equal(await client.exists(`${prefix}identity:`), 0, 'anonymous sessions are not indexed')
  await store.set('past', record('alice', now - 1), null)
  t.equal(await store.get('past'), null, 'a record already expired is not stored')
  t.equal(await client.exists(`${prefix}past`), 0)
  await store.set('other', record('alice', now + 60_000), null)
  await store.destroy(key)
  t.equal(await client.zscore(`${prefix}identity:alice`, key), null, 'destroy removes the index entry')
  t.same(await client.zrange(`${prefix}identity:alice`, 0, -1), ['other'], 'and only that one')
})

test('RedisSessionStore trims the identity index of expired members on every write', redis, async (t) => {
  const prefix = testPrefix('sess')
  const store = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  const client = new Redis(REDIS_URL)
  t.teardown(async () => { await store.close(); client.disconnect(); await cleanPrefix(prefix) })
  const index = `${prefix}identity:bob`
  await store.set('live1', record('bob', Date.now() + 60_000), null)
  let last = 0
  for (let i = 0; i < 3; i++) {
    last = Date.now() + 50
    await store.set(`short${i}`, record('bob', last), null)
  }
  t.equal(await client.zcard(index), 4)
  // Every short one has expired (a lower bound only: a busy machine waits longer).
  await untilPast(last)
  await store.set('live2', record('bob', Date.now() + 60_000), null)
  t.same(await client.zrange(index, 0, -1), ['live1', 'live2'], 'the next write dropped the expired members, however few')
  last = Date.now() + 50
  await store.set('short3', record('bob', last), null)
  await untilPast(last)
  await store.touch('live1', Date.now() + 120_000)
  t.same(await client.zrange(index, 0, -1), ['live2', 'live1'], 'so does a touch (members in deadline order)')
  t.equal(await store.destroyAllFor('bob'), 2)
  t.equal(await client.exists(index), 0, 'the index is gone with its last member')
})

test('RedisSessionStore: bad options are boot errors naming the problem', async (t) => {
  const bad = (options: unknown, prefix?: string) => () => new RedisSessionStore(options as never, prefix)
  t.throws(bad({}), { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS', message: /url/ })
  t.throws(bad({ url: 'http://127.0.0.1:6379' }), { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS', message: /unsupported scheme "http:"/ })
  t.throws(bad({ url: 'not a url' }), { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS', message: /not a URL/ })
  t.throws(bad({ url: 'redis://127.0.0.1:6379/zero' }), { message: /database must be a number/ })
  try {
    bad({ url: 'redis://u:s3cret@127.0.0.1:6379/x' })()
    t.fail('a bad database is refused')
  } catch (err) {
    t.match(err, { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS' })
    t.notMatch((err as Error).message, /s3cret/, 'the message never shows the password')
  }
  t.throws(bad({ client: {} }), { message: /expected an ioredis client/ })
  t.throws(bad({ url: REDIS_URL, client: new Redis({ lazyConnect: true }) }), { message: /not both/ })
  t.throws(bad({ url: REDIS_URL }, ''), { message: /prefix/ })
  t.throws(bad({ url: REDIS_URL, commandTimeout: 0 }), { message: /commandTimeout/ })
})

test('RedisSessionStore reads a record written before versions existed as version 0 (the component refuses it), and never writes over it', redis, async (t) => {
  const prefix = testPrefix('sess')
  const store = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  const client = new Redis(REDIS_URL)
  t.teardown(async () => { await store.close(); client.disconnect(); await cleanPrefix(prefix) })
  const now = Date.now()
  await client.hset(`${prefix}legacy`, 'r', JSON.stringify({ identity: 'alice', tags: ['t'], data: {}, createdAt: now }), 'e', String(now + 60_000), 'i', 'alice')
  t.match(await store.get('legacy'), { identity: 'alice', version: 0, via: null, stamp: null })
  t.equal(await store.set('legacy', record('alice', now + 60_000), null), 'conflict', 'a new session cannot take its key')
})
