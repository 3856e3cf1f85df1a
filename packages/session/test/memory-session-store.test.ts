import { test } from 'tap'
import { MemorySessionStore } from '@fastify-gatehouse/session'
import { sessionStoreConformance } from './helpers/session-store-conformance.js'
import { fakeClock } from '../../../test-helpers/clock.js'

test('MemorySessionStore conformance', async (t) => {
  const clock = fakeClock()
  await sessionStoreConformance(t, async () => new MemorySessionStore({ now: clock.now }), clock)
})

test('MemorySessionStore is bounded: the least recently used go first', async (t) => {
  const store = new MemorySessionStore({ max: 2 })
  const rec = (identity: string) => ({ identity, tags: [], data: {}, createdAt: Date.now(), expiresAt: Date.now() + 60_000, version: 1, via: null, stamp: null })
  store.set('a', rec('a'), null)
  store.set('b', rec('b'), null)
  store.get('a')
  store.set('c', rec('c'), null)
  t.equal(store.size, 2)
  t.not(store.get('a'), null, 'recently used, kept')
  t.equal(store.get('b'), null, 'least recently used, evicted')
  t.equal(store.destroyAllFor('b'), 0, 'the identity index follows evictions')
  t.throws(() => new MemorySessionStore({ max: 0 }), { code: 'GATEHOUSE_SESSION_INVALID_OPTIONS', message: 'session options: MemorySessionStore max must be a positive integer' })
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
  const store = new MemorySessionStore({ max: 3 })
  const rec = (identity: string | null) => ({ identity, tags: [], data: {}, createdAt: Date.now(), expiresAt: Date.now() + 60_000, version: 1, via: null, stamp: null })
  for (const key of ['a1', 'a2', 'a3']) store.set(key, rec('alice'), null)
  store.set('b1', rec('bob'), null)
  t.equal(store.get('a1'), null, 'the oldest of alice\'s sessions was evicted')
  store.set('n1', rec(null), null)
  t.equal(store.get('a2'), null, 'an anonymous session evicts too')
  t.equal(store.size, 3)
  // a1 comes back under another identity: alice's index must not still name it.
  store.set('a1', rec('carol'), null)
  t.equal(store.get('a3'), null)
  t.equal(store.destroyAllFor('alice'), 0, 'no evicted key is left in alice\'s index')
  t.not(store.get('a1'), null, 'so carol\'s session under a reused key survives alice\'s log-out-everywhere')
  t.equal(store.destroyAllFor('carol'), 1)
  t.equal(store.destroyAllFor('bob'), 1)
  t.equal(store.size, 1, 'only the anonymous session is left')
  // Many rounds of eviction: the index never outgrows the store.
  for (let i = 0; i < 100; i++) store.set(`k${i}`, rec(i % 2 === 0 ? 'alice' : 'bob'), null)
  t.equal(store.destroyAllFor('alice') + store.destroyAllFor('bob'), 3, 'exactly the sessions kept, 3 of 100')
  t.equal(store.size, 0)
})
