import { test } from 'tap'
import { LruMap } from '@fastify-gatehouse/core'
import { MemorySessionStore, memorySessionStoreDefaults, type SessionRecord } from '@fastify-gatehouse/session'
import { sessionStoreConformance } from '../../../test-helpers/conformance/sessions.js'
import { fakeClock } from '../../../test-helpers/clock.js'

const rec = (identity: string | null, expiresAt = Date.now() + 60_000, version = 1): SessionRecord =>
  ({ identity, tags: [], data: {}, createdAt: Date.now(), expiresAt, version, via: null, stamp: null })

function thrown (fn: () => unknown): unknown {
  try {
    fn()
  } catch (err) {
    return err
  }
  return undefined
}

test('MemorySessionStore conformance', async (t) => {
  const clock = fakeClock()
  await sessionStoreConformance(t, async () => new MemorySessionStore({ now: clock.now }), clock)
})

test('MemorySessionStore options: two budgets with defaults; the deprecated max sets both; bad values are boot errors naming the option', async (t) => {
  t.same(memorySessionStoreDefaults, { maxAnonymous: 10_000, maxSignedIn: 10_000 })
  t.ok(Object.isFrozen(memorySessionStoreDefaults))
  const invalid = (message: string) => ({ code: 'GATEHOUSE_SESSION_INVALID_OPTIONS', statusCode: 500, message: `session options: ${message}` })
  t.throws(() => new MemorySessionStore({ max: 0 }), invalid('MemorySessionStore max must be a positive integer'))
  t.type(thrown(() => new MemorySessionStore({ maxSignedIn: 0 })), TypeError, 'a boot error is a TypeError')
  t.throws(() => new MemorySessionStore({ maxAnonymous: 0 }), invalid('MemorySessionStore maxAnonymous must be a positive integer'))
  t.throws(() => new MemorySessionStore({ maxSignedIn: 2.5 }), invalid('MemorySessionStore maxSignedIn must be a positive integer'))
  t.throws(() => new MemorySessionStore({ maxSignedIn: '5' as unknown as number }), invalid('MemorySessionStore maxSignedIn must be a positive integer'))
  t.throws(() => new MemorySessionStore({ maxAnonymous: 5, maxSignedIn: 5, max: -1 }), invalid('MemorySessionStore max must be a positive integer'), 'a bad max is refused even when both budgets are given')
  t.throws(() => new MemorySessionStore({ now: 5 as unknown as () => number }), invalid('MemorySessionStore now must be a function'))
  t.throws(() => new MemorySessionStore(null as never), invalid('MemorySessionStore takes an options object'))

  const old = new MemorySessionStore({ max: 2 })
  for (const key of ['a', 'b', 'c']) old.set(key, rec(key), null)
  for (const key of ['x', 'y', 'z']) old.set(key, rec(null), null)
  t.same(old.sizes, { anonymous: 2, signedIn: 2 }, 'max alone bounds each kind')
  const mixed = new MemorySessionStore({ max: 2, maxSignedIn: 3 })
  for (const key of ['a', 'b', 'c', 'd']) mixed.set(key, rec(key), null)
  for (const key of ['x', 'y', 'z']) mixed.set(key, rec(null), null)
  t.same(mixed.sizes, { anonymous: 2, signedIn: 3 }, 'a budget given wins over max')
})

test('MemorySessionStore: over-budget signed-in sessions push out the least recently used signed-in one', async (t) => {
  const store = new MemorySessionStore({ maxSignedIn: 2, maxAnonymous: 2 })
  store.set('a', rec('a'), null)
  store.set('b', rec('b'), null)
  store.get('a')
  store.set('c', rec('c'), null)
  t.equal(store.size, 2)
  t.not(store.get('a'), null, 'recently used, kept')
  t.equal(store.get('b'), null, 'least recently used, evicted')
  t.equal(store.destroyAllFor('b'), 0, 'the identity index follows evictions')
  store.touch('c', Date.now() + 120_000)
  store.set('d', rec('d'), null)
  t.equal(store.get('a'), null, 'a touch is a use too: a goes before c')
  t.not(store.get('c'), null)
})

test('MemorySessionStore: a flood of anonymous sessions never evicts a signed-in one', async (t) => {
  const store = new MemorySessionStore({ maxAnonymous: 10, maxSignedIn: 5 })
  for (let i = 0; i < 5; i++) store.set(`user${i}`, rec(`u${i}`), null)
  // Far more unauthenticated starts than the anonymous budget, and far more than both budgets together.
  for (let i = 0; i < 1000; i++) store.set(`anon${i}`, rec(null), null)
  t.same(store.sizes, { anonymous: 10, signedIn: 5 })
  for (let i = 0; i < 5; i++) t.match(store.get(`user${i}`), { identity: `u${i}` }, `user${i} is still signed in`)
  t.equal(store.get('anon989'), null, 'the older anonymous sessions went')
  for (let i = 990; i < 1000; i++) t.not(store.get(`anon${i}`), null, `anon${i}, among the 10 most recent, is kept`)
  t.equal(store.destroyAllFor('u3'), 1, 'the identity index is intact')
})

test('MemorySessionStore: a session that changes kind moves between the budgets', async (t) => {
  const store = new MemorySessionStore({ maxAnonymous: 2, maxSignedIn: 2 })
  store.set('s1', rec('alice'), null)
  store.set('s2', rec('bob'), null)
  store.set('n1', rec(null), null)
  store.set('n2', rec(null), null)
  // Login: the anonymous n1 becomes carol's, under a regenerated key; the signed-in budget is full.
  t.equal(store.set('c1', rec('carol', Date.now() + 60_000, 2), { key: 'n1', version: 1 }), 'written')
  t.same(store.sizes, { anonymous: 1, signedIn: 2 }, 'it left the anonymous budget and entered the signed-in one')
  t.equal(store.get('s1'), null, 'pushing out the least recently used signed-in session')
  t.equal(store.destroyAllFor('alice'), 0)
  t.not(store.get('n2'), null, 'not an anonymous one')
  // Logout of a kind that keeps its key: bob's session becomes anonymous.
  t.equal(store.set('s2', rec(null, Date.now() + 60_000, 2), { key: 's2', version: 1 }), 'written')
  t.same(store.sizes, { anonymous: 2, signedIn: 1 })
  t.equal(store.destroyAllFor('bob'), 0, 'no longer indexed under bob')
  // The anonymous budget is full: a third anonymous session pushes out an anonymous one, never carol.
  store.set('n3', rec(null), null)
  t.same(store.sizes, { anonymous: 2, signedIn: 1 })
  t.equal(store.get('n2'), null, 'n2 was the least recently used anonymous session')
  t.match(store.get('c1'), { identity: 'carol', version: 2 })
  t.match(store.get('s2'), { identity: null, version: 2 })
  t.equal(store.destroyAllFor('carol'), 1)
})

test('MemorySessionStore hands out frozen snapshots: no later write or touch changes what a request holds', async (t) => {
  const store = new MemorySessionStore()
  const now = Date.now()
  const given = { identity: 'alice', tags: ['member'], data: { cart: [1] }, createdAt: now, expiresAt: now + 1000, version: 1, via: null, stamp: null }
  store.set('k', given, null)
  given.data.cart.push(2)
  const held = store.get('k')!
  t.same(held.data, { cart: [1] }, 'the store keeps its own copy of what was written')
  t.ok(Object.isFrozen(held) && Object.isFrozen(held.data) && Object.isFrozen(held.data.cart as unknown[]) && Object.isFrozen(held.tags), 'deeply frozen')
  t.throws(() => { (held.data.cart as number[]).push(3) }, TypeError, 'a request cannot change the stored record in place')
  store.touch('k', now + 60_000)
  t.equal(held.expiresAt, now + 1000, 'a touch replaces the record; the snapshot held is unchanged')
  t.equal(store.get('k')!.expiresAt, now + 60_000)
  t.equal(store.get('k')!.version, 1)
  store.set('k', { ...given, data: { cart: [9] }, version: 2 }, { key: 'k', version: 1 })
  t.same(held.data, { cart: [1] }, 'nor does a write')
  t.equal(held.version, 1)
})

test('MemorySessionStore keeps its identity index right when sessions are evicted', async (t) => {
  const store = new MemorySessionStore({ maxSignedIn: 3, maxAnonymous: 3 })
  for (const key of ['a1', 'a2', 'a3']) store.set(key, rec('alice'), null)
  store.set('b1', rec('bob'), null)
  t.equal(store.get('a1'), null, 'the oldest of alice\'s sessions was evicted')
  for (const key of ['n1', 'n2', 'n3', 'n4']) store.set(key, rec(null), null)
  t.not(store.get('a2'), null, 'anonymous sessions evict only their own kind')
  t.same(store.sizes, { anonymous: 3, signedIn: 3 })
  // a1 comes back under another identity: alice's index must not still name it.
  store.set('a1', rec('carol'), null)
  t.equal(store.get('a3'), null)
  t.equal(store.destroyAllFor('alice'), 1, 'a2 only: no evicted key is left in alice\'s index')
  t.not(store.get('a1'), null, 'so carol\'s session under a reused key survives alice\'s log-out-everywhere')
  t.equal(store.destroyAllFor('carol'), 1)
  t.equal(store.destroyAllFor('bob'), 1)
  t.same(store.sizes, { anonymous: 3, signedIn: 0 }, 'only the anonymous sessions are left')
  // Many rounds of eviction: the index never outgrows the store.
  for (let i = 0; i < 100; i++) store.set(`k${i}`, rec(i % 2 === 0 ? 'alice' : 'bob'), null)
  t.equal(store.destroyAllFor('alice') + store.destroyAllFor('bob'), 3, 'exactly the sessions kept, 3 of 100')
  t.same(store.sizes, { anonymous: 3, signedIn: 0 })
})

test('MemorySessionStore: ordinary traffic sweeps a store full of expired records, without a timer', async (t) => {
  const clock = fakeClock()
  const store = new MemorySessionStore({ now: clock.now, maxAnonymous: 5000, maxSignedIn: 5000 })
  const n = 2000
  for (let i = 0; i < n; i++) {
    store.set(`old-user${i}`, rec(`u${i % 50}`, clock.now() + 1000), null)
    store.set(`old-anon${i}`, rec(null, clock.now() + 1000), null)
  }
  const alive = rec('keeper', clock.now() + 3_600_000)
  store.set('keeper', alive, null)
  clock.advance(1000)
  t.same(store.sizes, { anonymous: n, signedIn: n + 1 }, 'expired records are held until something meets them')

  // Ordinary traffic: new visitors, sign-ins, touches and logouts of the new sessions, eight reads per write; never a read of an old one.
  let writes = 0
  const live: string[] = []
  while (store.size > live.length + 1) {
    const i = writes++
    if (i % 4 === 0) store.set(`new-anon${i}`, rec(null, clock.now() + 3_600_000), null)
    else if (i % 4 === 1) store.set(`new-user${i}`, rec(`u${i % 50}`, clock.now() + 3_600_000), null)
    else if (i % 4 === 2) store.touch(live.at(-1) ?? 'keeper', clock.now() + 3_600_000)
    else store.destroy(`new-anon${i - 3}`)
    if (i % 4 === 1) live.push(`new-user${i}`)
    // Reads outnumber writes: each moves a live session to the recent end.
    for (let r = 0; r < 8; r++) store.get(live[(i + r) % Math.max(1, live.length)] ?? 'keeper')
    if (writes > 4 * n) break
  }
  t.comment(`${2 * n} expired records swept by ${writes} writes`)
  t.ok(writes <= n, `swept within ${n} writes (${writes}): each write examines a few records of each kind`)
  t.same(store.sizes, { anonymous: 0, signedIn: live.length + 1 }, 'no expired record is left; no live one was dropped')
  t.match(store.get('keeper'), { identity: 'keeper' })
  for (let u = 0; u < 50; u++) store.destroyAllFor(`u${u}`)
  t.same(store.sizes, { anonymous: 0, signedIn: 1 }, 'the identity index followed the sweep: the new sessions were all it held')
})

test('MemorySessionStore.sweep() drops every expired record at once, and only those', async (t) => {
  const clock = fakeClock()
  const store = new MemorySessionStore({ now: clock.now })
  for (let i = 0; i < 30; i++) store.set(`short${i}`, rec(i % 3 === 0 ? null : 'alice', clock.now() + 10), null)
  for (let i = 0; i < 5; i++) store.set(`long${i}`, rec(i % 2 === 0 ? null : 'alice', clock.now() + 60_000), null)
  t.equal(store.sweep(), 0, 'nothing has expired yet')
  clock.advance(10)
  t.equal(store.sweep(), 30)
  t.same(store.sizes, { anonymous: 3, signedIn: 2 })
  t.equal(store.sweep(), 0)
  t.equal(store.destroyAllFor('alice'), 2, 'the index holds only the live ones')
})

test('MemorySessionStore: an unknown option is a boot error naming it', async (t) => {
  t.throws(() => new MemorySessionStore({ maxSignedin: 5 } as never), { code: 'GATEHOUSE_SESSION_INVALID_OPTIONS', message: /maxSignedin: unknown option/ })
})

/** Counts what `work` asks of every LruMap (the store's two maps): records looked at, and walks over a whole map. */
function lruWork (work: () => void): { peeks: number, gets: number, walks: number } {
  const counted = { peeks: 0, gets: 0, walks: 0 }
  const proto = LruMap.prototype as unknown as Record<'peek' | 'get' | 'entries', (...args: unknown[]) => unknown>
  const original = { peek: proto.peek, get: proto.get, entries: proto.entries }
  proto.peek = function (this: unknown, ...args) { counted.peeks++; return original.peek.apply(this, args) }
  proto.get = function (this: unknown, ...args) { counted.gets++; return original.get.apply(this, args) }
  proto.entries = function (this: unknown, ...args) { counted.walks++; return original.entries.apply(this, args) }
  try {
    work()
  } finally {
    Object.assign(proto, original)
  }
  return counted
}

test('MemorySessionStore.listFor looks only at the identity\'s own sessions, with 100 000 sessions of others present', async (t) => {
  const store = new MemorySessionStore({ maxSignedIn: 200_000 })
  const later = Date.now() + 3_600_000
  for (let i = 0; i < 100_000; i++) {
    store.set(`other-${i}`, rec(`user-${i % 25_000}`, later), null)
    if (i % 20_000 === 0) store.set(`alice-${i / 20_000}`, rec('alice', later + i), null)
  }
  t.equal(store.sizes.signedIn, 100_005)
  let listed: ReturnType<MemorySessionStore['listFor']> = []
  const work = lruWork(() => { listed = store.listFor('alice', 100) })
  t.same(listed.map((e) => e.key), ['alice-4', 'alice-3', 'alice-2', 'alice-1', 'alice-0'], 'alice\'s five, the latest deadline first')
  t.same(work, { peeks: 5, gets: 0, walks: 0 }, 'one look at each of her records; no walk over a map, no use (LRU order kept)')
  t.same(lruWork(() => { listed = store.listFor('nobody', 100) }), { peeks: 0, gets: 0, walks: 0 }, 'an identity without sessions costs nothing')
  t.same(listed, [])
})
