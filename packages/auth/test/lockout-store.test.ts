import { test } from 'tap'
import { MemoryLockoutStore, lockSeconds } from '@fastify-gatehouse/auth'
import { lockoutStoreConformance } from '../../../test-helpers/conformance/lockout.js'

const policy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }

test('lock lengths double from the threshold, capped at a day', async (t) => {
  t.same([1, 4, 5, 6, 7, 10].map((n) => lockSeconds(n, policy)), [0, 0, 30, 60, 120, 960])
  t.equal(lockSeconds(1000, policy), 86_400)
})

test('MemoryLockoutStore conformance', async (t) => {
  await lockoutStoreConformance(t, async () => new MemoryLockoutStore())
})

test('MemoryLockoutStore: keys are independent and the store is bounded', async (t) => {
  const store = new MemoryLockoutStore(2)
  for (let i = 0; i < 5; i++) { store.claim('a', policy, 0); store.recordFailure('a', policy, 0) }
  t.equal(store.lockedFor('a', 0), 30)
  t.equal(store.lockedFor('b', 0), 0)
  store.claim('b', policy, 0)
  store.claim('c', policy, 0)
  store.claim('e', policy, 0)
  t.equal(store.lockedFor('a', 0), 30, 'a locked key is never dropped (D-LOCKOUT-10)')
  t.same(store.sizes, { open: 2, locked: 1 }, 'the open keys are bounded: b, the least recently changed, went')
  store.claim('d', policy, 0)
  t.equal(store.claim('c', { ...policy, maxAttempts: 1 }, 0), 0, 'reading a key does not keep it: c, changed before e, went first (its claim is gone)')
  t.equal(store.lockedFor('a', 30_000), 0, 'the lock ends')
  store.claim('f', policy, 30_000)
  t.equal(store.claim('a', { ...policy, maxAttempts: 6 }, 30_000), 0, 'then the key counts on among the open ones')
  t.throws(() => new MemoryLockoutStore(0), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'MemoryLockoutStore max: must be a positive integer' })
  t.throws(() => new MemoryLockoutStore({ maxLocked: 1.5 }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'MemoryLockoutStore maxLocked: must be a positive integer' })
})
