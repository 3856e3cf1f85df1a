import type { Test } from 'tap'
import type { LockoutStore } from '@gatehouse/auth'

const policy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }

/**
 * The contract every LockoutStore keeps; `make` gives a fresh, empty store.
 * Times are passed in (a fake clock), so a store must reckon with the `now`
 * it is given, not with its own clock.
 */
export async function lockoutStoreConformance (t: Test, make: () => Promise<LockoutStore>): Promise<void> {
  await t.test('the backoff doubles; locked attempts do not extend it; a reset starts over', async (t) => {
    const store = await make()
    let now = Date.now()
    for (let i = 1; i <= 4; i++) t.equal(await store.fail('identity:alice', policy, now), 0, `failure ${i}: not locked`)
    t.equal(await store.lockedFor('identity:alice', now), 0, 'not locked below maxAttempts')
    t.equal(await store.fail('identity:alice', policy, now), 30, 'the 5th failure locks for 30 s')
    t.equal(await store.lockedFor('identity:alice', now), 30)
    now += 10_000
    t.equal(await store.fail('identity:alice', policy, now), 20, 'a failure while locked is not counted: 20 s left, not extended')
    t.equal(await store.lockedFor('identity:alice', now), 20)
    t.equal(await store.lockedFor('identity:alice', now + 19_500), 1, 'partial seconds round up')
    now += 20_000
    t.equal(await store.lockedFor('identity:alice', now), 0, 'the lock ends')
    t.equal(await store.fail('identity:alice', policy, now), 60, 'the next failure doubles it')
    now += 60_000
    t.equal(await store.fail('identity:alice', policy, now), 120, 'and again')
    await store.reset('identity:alice')
    t.equal(await store.lockedFor('identity:alice', now), 0)
    t.equal(await store.fail('identity:alice', policy, now), 0, 'after a success the count starts over')
    await store.reset('never-failed')
  })

  await t.test('failures are forgotten after a quiet resetAfter', async (t) => {
    const store = await make()
    let now = Date.now()
    for (let i = 0; i < 4; i++) await store.fail('k', policy, now)
    now += 3_601_000
    t.equal(await store.fail('k', policy, now), 0, 'four old failures and a new one do not lock')
    for (let i = 0; i < 3; i++) await store.fail('k', policy, now)
    t.equal(await store.fail('k', policy, now), 30, 'five recent failures do')
  })

  await t.test('keys are independent; policies apply per call', async (t) => {
    const store = await make()
    const now = Date.now()
    for (let i = 0; i < 5; i++) await store.fail('identity:a', policy, now)
    t.equal(await store.lockedFor('identity:a', now), 30)
    t.equal(await store.lockedFor('identity:b', now), 0)
    const strict = { maxAttempts: 2, backoff: 7, resetAfter: 60 }
    t.equal(await store.fail('address:203.0.113.9', strict, now), 0)
    t.equal(await store.fail('address:203.0.113.9', strict, now), 7)
  })

  await t.test('the lock is capped at a day', async (t) => {
    const store = await make()
    const now = Date.now()
    const steep = { maxAttempts: 1, backoff: 50_000, resetAfter: 200_000 }
    t.equal(await store.fail('k', steep, now), 50_000)
    t.equal(await store.fail('k', steep, now + 50_000_000), 86_400, 'doubled past a day: a day')
  })

  await t.test('concurrent failures are all counted', async (t) => {
    const store = await make()
    const now = Date.now()
    const locks = await Promise.all(Array.from({ length: 5 }, async () => await store.fail('identity:burst', policy, now)))
    t.same(locks.filter((s) => s > 0), [30], 'exactly one of five concurrent failures locks')
    t.equal(await store.lockedFor('identity:burst', now), 30)
  })
}
