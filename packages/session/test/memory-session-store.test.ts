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
  t.throws(() => new MemorySessionStore({ max: 0 }), TypeError)
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
