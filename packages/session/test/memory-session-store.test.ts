import { test } from 'tap'
import { MemorySessionStore } from '@gatehouse/session'
import { sessionStoreConformance } from './helpers/session-store-conformance.js'

test('MemorySessionStore conformance', async (t) => {
  await sessionStoreConformance(t, async () => new MemorySessionStore())
})

test('MemorySessionStore is bounded: the least recently used go first', async (t) => {
  const store = new MemorySessionStore({ max: 2 })
  const rec = (identity: string) => ({ identity, tags: [], data: {}, createdAt: Date.now(), expiresAt: Date.now() + 60_000 })
  store.set('a', rec('a'))
  store.set('b', rec('b'))
  store.get('a')
  store.set('c', rec('c'))
  t.equal(store.size, 2)
  t.not(store.get('a'), null, 'recently used, kept')
  t.equal(store.get('b'), null, 'least recently used, evicted')
  t.equal(store.destroyAllFor('b'), 0, 'the identity index follows evictions')
  t.throws(() => new MemorySessionStore({ max: 0 }), TypeError)
})
