// The identity index of RedisSessionStore (D-REDIS-09): a sorted set scored
// by expiry, so a write costs the same however many sessions the identity
// has; expired members are trimmed by score; destroyAllFor works in bounded
// batches; an index written as a plain set by an older version is converted.
import { test } from 'tap'
import { Redis } from 'ioredis'
import { newSessionId, sessionKey, type SessionRecord } from '@fastify-gatehouse/session'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import { cleanPrefix, needRedis, needRedisServer, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from './helpers/redis.js'
import { RedisProcess } from './helpers/redis-process.js'
import { freePort } from '../../../test-helpers/port.js'
import { untilPast } from '../../../test-helpers/wait.js'

const redis = await needRedis()
const ownServer = await needRedisServer()
const HOUR = 3_600_000
const record = (identity: string | null, expiresAt: number, version = 1): SessionRecord =>
  ({ identity, tags: identity === null ? [] : ['t'], data: {}, createdAt: Date.now(), expiresAt, version, via: null, stamp: null })

/** Calls per command from INFO commandstats (commands run by scripts included). */
async function commandCalls (client: Redis): Promise<Map<string, number>> {
  const calls = new Map<string, number>()
  for (const line of (await client.info('commandstats')).split('\r\n')) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line)
    if (match !== null) calls.set(match[1]!, Number(match[2]))
  }
  return calls
}

/** Writes `count` sessions of `identity` through the store, `at once` at a time; resolves with their keys. */
async function sessions (store: RedisSessionStore, identity: string, count: number, expiresAt: number, atOnce = 250): Promise<string[]> {
  const keys = Array.from({ length: count }, () => sessionKey(newSessionId()))
  for (let i = 0; i < count; i += atOnce) {
    const results = await Promise.all(keys.slice(i, i + atOnce).map(async (key) => await store.set(key, record(identity, expiresAt), null)))
    if (results.some((r) => r !== 'written')) throw new Error(`a setup write was not written: ${results.join()}`)
  }
  return keys
}

// A redis-server of this test's own: INFO commandstats counts every command
// of the server, so no other test (or agent) on the shared Redis may move them.
test('an identity with 5 000 live sessions: a write touches none of the others; expired members are trimmed; destroyAllFor ends them all, in batches', ownServer, async (t) => {
  const server = new RedisProcess(await freePort())
  await server.start()
  const client = new Redis(server.url)
  const store = await RedisSessionStore.connect({ url: server.url, ...PATIENT_TIMEOUTS, prefix: 'g:' })
  t.teardown(async () => { await store.close(); client.disconnect(); await server.stop() })

  const live = await sessions(store, 'alice', 5000, Date.now() + HOUR)
  const shortDeadline = Date.now() + 200
  const short = await sessions(store, 'alice', 20, shortDeadline)
  await sessions(store, 'bob', 3, Date.now() + HOUR)
  t.equal(await client.zcard('g:identity:alice'), 5020)
  await untilPast(shortDeadline)
  // Loads the touch and destroy scripts, so each call below is one EVALSHA (no NOSCRIPT, then EVAL).
  await store.touch('none', Date.now())
  await store.destroy('none')

  await client.config('RESETSTAT')
  // Every kind of write, against the 5 020-member index.
  const added = sessionKey(newSessionId())
  const moved = sessionKey(newSessionId())
  t.equal(await store.set(added, record('alice', Date.now() + HOUR), null), 'written', 'a new session')
  t.equal(await store.set(live[0]!, record('alice', Date.now() + HOUR, 2), { key: live[0]!, version: 1 }), 'written', 'a change')
  t.equal(await store.set(moved, record('alice', Date.now() + HOUR, 2), { key: live[1]!, version: 1 }), 'written', 'a regenerated id')
  t.equal(await store.set(live[2]!, record(null, Date.now() + HOUR, 2), { key: live[2]!, version: 1 }), 'written', 'a logout that keeps the key')
  t.equal(await store.set(live[3]!, record('bob', Date.now() + HOUR, 2), { key: live[3]!, version: 1 }), 'written', 'another identity')
  await store.touch(live[4]!, Date.now() + 2 * HOUR)
  await store.destroy(live[5]!)
  const writes = 7
  const calls = await commandCalls(client)
  const scripted = [...calls].filter(([name]) => !['evalsha', 'config|resetstat', 'info'].includes(name))
  const total = scripted.reduce((sum, [, n]) => sum + n, 0)
  t.comment(`commands run by ${writes} writes with 5 020 members: ${scripted.map(([name, n]) => `${name} ${n}`).join(', ')}`)
  t.equal(calls.get('evalsha'), writes, 'one script a write')
  t.equal(calls.get('eval'), undefined)
  t.ok(total <= writes * 16, `a bounded number of commands a write, not one per member (${total} for ${writes} writes)`)
  t.ok((calls.get('exists') ?? 0) <= writes * 2, `EXISTS at most twice a write (${calls.get('exists') ?? 0})`)
  for (const whole of ['smembers', 'zrange', 'zrangebyscore', 'sscan', 'zscan']) t.equal(calls.get(whole), undefined, `no ${whole}: nothing reads the whole index`)
  t.ok((calls.get('zremrangebyscore') ?? 0) >= 1, 'the expired members were trimmed by score')

  const members = new Set(await client.zrange('g:identity:alice', 0, -1))
  t.equal(members.size, 5020 - 20 - 4 + 2, 'expired out; changed kind, identity or key out; the new ones in')
  t.notOk(short.some((key) => members.has(key)), 'no expired member is left')
  t.ok(members.has(added) && members.has(moved) && !members.has(live[1]!) && !members.has(live[2]!) && !members.has(live[3]!) && !members.has(live[5]!))
  t.equal(await client.zscore('g:identity:alice', live[4]!), String(Number((await client.hget(`g:${live[4]}`, 'e'))!)), 'the touched member is scored by its new deadline')

  await client.config('RESETSTAT')
  t.equal(await store.destroyAllFor('alice'), 4998, 'every live session of alice ended')
  t.equal(Number((await commandCalls(client)).get('evalsha')), Math.ceil(4998 / 500), 'in batches of 500, one script each')
  t.equal(await client.exists('g:identity:alice'), 0, 'the index is gone')
  t.same((await client.keys('g:*')).filter((key) => key !== 'g:identity:bob').length, 6, 'left: bob\'s 4 sessions, the anonymous one and the note the regenerated id left (D-REDIS-11)')
  t.equal(await client.get(`g:moved:${live[1]}`), moved, 'the note names the new key')
  t.equal(await store.get(live[0]!), null)
  t.not(await store.get(live[2]!), null, 'the session that signed out (anonymous now) is not alice\'s')
  t.equal(await store.destroyAllFor('bob'), 4)
})

/** Writes an old-layout session (a set index, before D-REDIS-09) straight into Redis. */
async function oldLayout (client: Redis, prefix: string, identity: string, entries: Array<{ key: string, expiresAt?: number, as?: string }>, indexExpiresAt: number): Promise<void> {
  const now = Date.now()
  for (const { key, expiresAt, as } of entries) {
    if (expiresAt === undefined) continue // indexed, but its record is gone
    const owner = as ?? identity
    await client.hset(`${prefix}${key}`, 'r', JSON.stringify({ identity: owner, tags: ['t'], data: {}, createdAt: now }), 'e', String(expiresAt), 'v', '1', 'i', owner)
    await client.pexpireat(`${prefix}${key}`, expiresAt)
  }
  await client.sadd(`${prefix}identity:${identity}`, ...entries.map((entry) => entry.key))
  await client.pexpireat(`${prefix}identity:${identity}`, indexExpiresAt)
}

/** An expiry carried over as a TTL: never earlier, and later only by the moments the conversion took. */
const within = (actual: number, expected: number): boolean => actual >= expected && actual <= expected + 5_000

test('an identity index left as a plain set by an older version is converted once, by whichever call meets it first', redis, async (t) => {
  const prefix = testPrefix('sess')
  const store = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  const client = new Redis(REDIS_URL)
  t.teardown(async () => { await store.close(); client.disconnect(); await cleanPrefix(prefix) })
  const at = Date.now() + HOUR
  const indexAt = at + 10_000

  // set: alice's old index has live members, one whose record is gone, and one re-used by carol.
  await oldLayout(client, prefix, 'alice', [{ key: 'a1', expiresAt: at }, { key: 'a2', expiresAt: at + 1 }, { key: 'gone' }, { key: 'carols', expiresAt: at, as: 'carol' }], indexAt)
  t.equal(await store.set('a3', record('alice', at + 2), null), 'written', 'a write finds the old index and does not fail (no WRONGTYPE)')
  const index = `${prefix}identity:alice`
  t.equal(await client.type(index), 'zset', 'converted')
  t.same(await client.zrange(index, 0, -1, 'WITHSCORES'), ['a1', String(at), 'a2', String(at + 1), 'a3', String(at + 2)], 'members scored from their records; dead and foreign members dropped')
  // Kept as a TTL across the conversion (PTTL, then PEXPIRE): a millisecond or two may pass between.
  t.ok(within(await client.pexpiretime(index), indexAt), 'its expiry kept (no earlier than its members\')')
  t.match(await store.get('a1'), { identity: 'alice', version: 1 }, 'the old records still read')
  t.equal(await store.set('a1', record('alice', at + 5, 2), { key: 'a1', version: 1 }), 'written', 'and can be written')
  t.equal(await client.zscore(index, 'a1'), String(at + 5))

  // touch, destroy, destroyAllFor, and a write that moves a session away from an old index.
  await oldLayout(client, prefix, 'bob', [{ key: 'b1', expiresAt: at }, { key: 'b2', expiresAt: at }], indexAt)
  await store.touch('b1', at + 60_000)
  t.equal(await client.type(`${prefix}identity:bob`), 'zset', 'a touch converts')
  t.same(await client.zrange(`${prefix}identity:bob`, 0, -1, 'WITHSCORES'), ['b2', String(at), 'b1', String(at + 60_000)])
  await oldLayout(client, prefix, 'dave', [{ key: 'd1', expiresAt: at }, { key: 'd2', expiresAt: at }], indexAt)
  await store.destroy('d1')
  t.same(await client.zrange(`${prefix}identity:dave`, 0, -1), ['d2'], 'a destroy converts')
  await oldLayout(client, prefix, 'erin', [{ key: 'e1', expiresAt: at }, { key: 'e2', expiresAt: at }, { key: 'e3', expiresAt: at }], indexAt)
  t.equal(await store.set('e1', record('frank', at, 2), { key: 'e1', version: 1 }), 'written', 'a session re-used by another identity')
  t.same(await client.zrange(`${prefix}identity:erin`, 0, -1), ['e2', 'e3'], 'leaves the old index, converted')
  t.same(await client.zrange(`${prefix}identity:frank`, 0, -1), ['e1'])
  await oldLayout(client, prefix, 'gina', [{ key: 'g1', expiresAt: at }, { key: 'g2', expiresAt: at }, { key: 'gone' }], indexAt)
  t.equal(await store.destroyAllFor('gina'), 2, 'destroyAllFor converts, and ends them all')
  t.equal(await client.exists(`${prefix}identity:gina`, `${prefix}g1`, `${prefix}g2`), 0)
  t.equal(await store.destroyAllFor('alice'), 3)
  t.equal(await store.destroyAllFor('carol'), 0, 'carol\'s session was never in her index (as before)')
})

test('dozens of parallel writes and destroys for one identity from two instances leave the index exact', redis, async (t) => {
  const prefix = testPrefix('sess')
  const a = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  const b = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  const client = new Redis(REDIS_URL)
  t.teardown(async () => { await a.close(); await b.close(); client.disconnect(); await cleanPrefix(prefix) })
  const index = `${prefix}identity:alice`
  const on = (i: number): RedisSessionStore => i % 2 === 0 ? a : b
  const at = (): number => Date.now() + HOUR + Math.floor(Math.random() * 60_000)

  /** The index matches the records exactly: one member per session of alice, scored by its deadline. */
  async function consistent (what: string): Promise<number> {
    const members = await client.zrange(index, 0, -1, 'WITHSCORES')
    const indexed = new Map<string, string>()
    for (let i = 0; i < members.length; i += 2) indexed.set(members[i]!, members[i + 1]!)
    const records = new Map<string, string>()
    for (const key of await client.keys(`${prefix}*`)) {
      // The index, and the notes regenerated ids leave (D-REDIS-11).
      if (key.startsWith(`${prefix}identity:`) || key.startsWith(`${prefix}moved:`)) continue
      const [e, i] = await client.hmget(key, 'e', 'i')
      if (i === 'alice') records.set(key.slice(prefix.length), e!)
    }
    t.same(Object.fromEntries(indexed), Object.fromEntries(records), `${what}: the index names exactly alice's sessions, scored by their deadlines`)
    if (records.size > 0) t.ok(await client.pexpiretime(index) >= Math.max(...[...records.values()].map(Number)), `${what}: and expires no earlier than any`)
    return records.size
  }

  const keys = Array.from({ length: 60 }, () => sessionKey(newSessionId()))
  const created = await Promise.all(keys.map(async (key, i) => await on(i).set(key, record('alice', at()), null)))
  t.same(created, keys.map(() => 'written'), '60 sessions created in parallel by both instances')
  await consistent('after parallel creation')

  // At once, from both instances: touches, destroys, changes (two per session, one wins),
  // regenerated ids, logouts that keep the key, new sessions, and sessions of others.
  const renamed = keys.slice(30, 40).map(() => sessionKey(newSessionId()))
  const work: Array<Promise<unknown>> = [
    ...keys.slice(0, 10).map(async (key, i) => await on(i).touch(key, at() + HOUR)),
    ...keys.slice(10, 20).map(async (key, i) => await on(i).destroy(key)),
    ...keys.slice(20, 30).flatMap((key) => [a, b].map(async (store) => await store.set(key, record('alice', at(), 2), { key, version: 1 }))),
    ...keys.slice(30, 40).map(async (key, i) => await on(i).set(renamed[i]!, record('alice', at(), 2), { key, version: 1 })),
    ...keys.slice(40, 50).map(async (key, i) => await on(i).set(key, record(null, at(), 2), { key, version: 1 })),
    ...keys.slice(50, 60).flatMap((key, i) => [on(i).touch(key, at() + HOUR), on(i + 1).destroy(key)]),
    ...Array.from({ length: 20 }, async (_v, i) => await on(i).set(sessionKey(newSessionId()), record(i % 2 === 0 ? 'alice' : 'bob', at()), null))
  ]
  await Promise.all(work)
  const left = await consistent('after dozens of parallel writes')
  t.equal(left, 10 + 10 + 10 + 10, 'touched, changed, renamed and new ones are left; destroyed and signed-out ones are not')

  // Two logouts-everywhere at once, racing new sign-ins: each session ends once.
  const racing = Array.from({ length: 20 }, async (_v, i) => await on(i).set(sessionKey(newSessionId()), record('alice', at()), null))
  const [endedA, endedB] = await Promise.all([a.destroyAllFor('alice'), b.destroyAllFor('alice'), ...racing])
  const survivors = await consistent('after two destroyAllFor racing sign-ins')
  t.equal(Number(endedA) + Number(endedB) + survivors, left + 20, 'every session was ended exactly once, or signed in after both had passed')
  t.equal(await a.destroyAllFor('alice'), survivors)
  await consistent('at the end')
  t.equal(await client.exists(index), 0)
})

test('listFor meets an index left as a plain set: converts it, and lists the live sessions from it', redis, async (t) => {
  const prefix = testPrefix('sess')
  const store = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  const client = new Redis(REDIS_URL)
  t.teardown(async () => { await store.close(); client.disconnect(); await cleanPrefix(prefix) })
  const at = Date.now() + HOUR
  const indexAt = at + 10_000
  await oldLayout(client, prefix, 'hana', [{ key: 'h1', expiresAt: at }, { key: 'h2', expiresAt: at + 5 }, { key: 'gone' }, { key: 'ivans', expiresAt: at, as: 'ivan' }], indexAt)
  const listed = await store.listFor('hana', 100)
  t.same(listed.map((e) => e.key), ['h2', 'h1'], 'her live sessions, the latest deadline first; dead and foreign members left out')
  t.match(listed[0]!.record, { identity: 'hana', version: 1, expiresAt: at + 5 })
  const index = `${prefix}identity:hana`
  t.equal(await client.type(index), 'zset', 'converted (no WRONGTYPE)')
  t.same(await client.zrange(index, 0, -1, 'WITHSCORES'), ['h1', String(at), 'h2', String(at + 5)])
  t.ok(within(await client.pexpiretime(index), indexAt), 'its expiry kept')
  t.same((await store.listFor('hana', 1)).map((e) => e.key), ['h2'], 'and lists from the sorted set from then on')
})

test('listFor drops index members whose record is gone or signed in as another, and still fills its limit', redis, async (t) => {
  const prefix = testPrefix('sess')
  const store = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  const client = new Redis(REDIS_URL)
  t.teardown(async () => { await store.close(); client.disconnect(); await cleanPrefix(prefix) })
  const at = Date.now() + HOUR
  for (let i = 1; i <= 6; i++) t.equal(await store.set(`k${i}`, record('alice', at + i), null), 'written')
  // What no store write leaves but Redis itself may: a record evicted under
  // memory pressure or deleted by hand, and one changed behind the store's back.
  await client.del(`${prefix}k6`)
  await client.hset(`${prefix}k5`, 'i', 'mallory')
  t.same((await store.listFor('alice', 3)).map((e) => e.key), ['k4', 'k3', 'k2'], 'the next members fill the places of the dead ones')
  t.same(await client.zrange(`${prefix}identity:alice`, 0, -1), ['k1', 'k2', 'k3', 'k4'], 'and the dead ones leave the index')
  t.same((await store.listFor('alice', 100)).map((e) => e.key), ['k4', 'k3', 'k2', 'k1'])
})

// A redis-server of this test's own, as above: the counts are the server's.
test('listFor of a user with 5 sessions, among 20 000 sessions of 4 000 others: one script, one index read and one HMGET per session of hers', ownServer, async (t) => {
  const server = new RedisProcess(await freePort())
  await server.start()
  const client = new Redis(server.url)
  const store = await RedisSessionStore.connect({ url: server.url, ...PATIENT_TIMEOUTS, prefix: 'g:' })
  t.teardown(async () => { await store.close(); client.disconnect(); await server.stop() })

  for (let u = 0; u < 4000; u += 250) {
    await Promise.all(Array.from({ length: 250 }, async (_v, i) => await sessions(store, `user-${u + i}`, 5, Date.now() + HOUR)))
  }
  const hers = await sessions(store, 'alice', 5, Date.now() + HOUR)
  const shortDeadline = Date.now() + 200
  await sessions(store, 'alice', 3, shortDeadline)
  t.equal(await client.dbsize(), 20_000 + 8 + 4001, 'every session and index written')
  await untilPast(shortDeadline)
  await store.listFor('nobody', 1) // loads the script: each call below is one EVALSHA

  await client.config('RESETSTAT')
  const listed = await store.listFor('alice', 100)
  const calls = await commandCalls(client)
  t.same(listed.map((e) => e.key).sort(), [...hers].sort(), 'her five live sessions; the three expired ones not')
  const scripted = Object.fromEntries([...calls].filter(([name]) => !['config|resetstat', 'info'].includes(name)))
  t.comment(`commands of one listFor: ${JSON.stringify(scripted)}`)
  t.same(scripted, { evalsha: 1, type: 1, zrevrangebyscore: 1, hmget: 5 }, 'the type check of her index, one read of it by score (expired members skipped), one HMGET per live session: nothing of anyone else\'s')

  await client.config('RESETSTAT')
  t.same(await store.listFor('bob', 100), [])
  t.same(Object.fromEntries([...(await commandCalls(client))].filter(([name]) => !['config|resetstat', 'info'].includes(name))), { evalsha: 1, type: 1, zrevrangebyscore: 1 }, 'an identity without sessions: one empty read')
})
