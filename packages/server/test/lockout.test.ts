import { test } from 'tap'
import { MemoryLockoutStore, lockSeconds } from '@gatehouse/server'

const policy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }

test('lock lengths double from the threshold, capped at a day', async (t) => {
  t.same([1, 4, 5, 6, 7, 10].map((n) => lockSeconds(n, policy)), [0, 0, 30, 60, 120, 960])
  t.equal(lockSeconds(1000, policy), 86_400)
})

test('the backoff doubles with a fake clock; locked attempts do not extend it; success resets', async (t) => {
  const store = new MemoryLockoutStore()
  let now = 1_000_000
  for (let i = 1; i <= 4; i++) t.equal(store.fail('identity:alice', policy, now), 0, `failure ${i}: not locked`)
  t.equal(store.fail('identity:alice', policy, now), 30, 'the 5th failure locks for 30 s')
  t.equal(store.lockedFor('identity:alice', now), 30)
  now += 10_000
  t.equal(store.fail('identity:alice', policy, now), 20, 'a failure while locked is not counted: 20 s left, not extended')
  t.equal(store.lockedFor('identity:alice', now), 20)
  now += 20_000
  t.equal(store.lockedFor('identity:alice', now), 0, 'the lock ends')
  t.equal(store.fail('identity:alice', policy, now), 60, 'the next failure doubles it')
  now += 60_000
  t.equal(store.fail('identity:alice', policy, now), 120, 'and again')
  store.reset('identity:alice')
  t.equal(store.lockedFor('identity:alice', now), 0)
  t.equal(store.fail('identity:alice', policy, now), 0, 'after a success the count starts over')
})

test('failures are forgotten after a quiet resetAfter', async (t) => {
  const store = new MemoryLockoutStore()
  let now = 0
  for (let i = 0; i < 4; i++) store.fail('k', policy, now)
  now += 3_601_000
  t.equal(store.fail('k', policy, now), 0, 'four old failures and a new one do not lock')
})

test('keys are independent and the store is bounded', async (t) => {
  const store = new MemoryLockoutStore(2)
  for (let i = 0; i < 5; i++) store.fail('a', policy, 0)
  t.equal(store.lockedFor('b', 0), 0)
  store.fail('b', policy, 0)
  store.fail('c', policy, 0)
  t.equal(store.lockedFor('a', 0), 0, 'the least recently failed key was dropped')
  t.throws(() => new MemoryLockoutStore(0), TypeError)
})
