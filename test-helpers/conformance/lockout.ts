import type { Test } from 'tap'
import { CLAIM_TTL_MS, LOCKOUT_LIMITS, MAX_LOCK_SECONDS, type LockoutPolicy, type LockoutStore } from '@fastify-gatehouse/auth'

const policy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }

/** One attempt that fails: claimed at `now`, settled as a failure at `now + took`; resolves with the lock, or -1 when the claim was refused. */
async function failedAttempt (store: LockoutStore, key: string, now: number, took = 0, p: LockoutPolicy = policy): Promise<number> {
  if (await store.claim(key, p, now) > 0) return -1
  return await store.recordFailure(key, p, now + took)
}

/**
 * The contract every LockoutStore keeps; `make` gives a fresh, empty store.
 * Times are passed in (a fake clock), so a store must reckon with the `now`
 * it is given, not with its own clock.
 */
export async function lockoutStoreConformance (t: Test, make: () => Promise<LockoutStore>): Promise<void> {
  await t.test('the backoff doubles; refused attempts are not counted; a reset starts over', async (t) => {
    const store = await make()
    let now = Date.now()
    for (let i = 1; i <= 4; i++) t.equal(await failedAttempt(store, 'identity:alice', now), 0, `failure ${i}: not locked`)
    t.equal(await store.lockedFor('identity:alice', now), 0, 'not locked below maxAttempts')
    t.equal(await failedAttempt(store, 'identity:alice', now), 30, 'the 5th failure locks for 30 s')
    t.equal(await store.lockedFor('identity:alice', now), 30)
    now += 10_000
    t.equal(await store.claim('identity:alice', policy, now), 20, 'a claim while locked is refused with the 20 s left, not extended')
    t.equal(await store.lockedFor('identity:alice', now), 20)
    t.equal(await store.lockedFor('identity:alice', now + 19_500), 1, 'partial seconds round up')
    now += 20_000
    t.equal(await store.lockedFor('identity:alice', now), 0, 'the lock ends')
    t.equal(await failedAttempt(store, 'identity:alice', now), 60, 'the next failure doubles it')
    now += 60_000
    t.equal(await failedAttempt(store, 'identity:alice', now), 120, 'and again')
    await store.reset('identity:alice')
    t.equal(await store.lockedFor('identity:alice', now), 0)
    t.equal(await failedAttempt(store, 'identity:alice', now), 0, 'after a reset the count starts over')
    await store.reset('never-failed')
  })

  await t.test('concurrent claims: no more than maxAttempts go ahead, however many arrive at once', async (t) => {
    const store = await make()
    const now = Date.now()
    const waits = await Promise.all(Array.from({ length: 30 }, async () => await store.claim('identity:burst', policy, now)))
    t.equal(waits.filter((w) => w === 0).length, 5, 'five of thirty claims go ahead')
    t.ok(waits.filter((w) => w > 0).every((w) => w === 30), 'the rest wait for the lock the five would start')
    t.equal(await store.lockedFor('identity:burst', now), 0, 'no lock yet: nothing has failed')
    const locks = await Promise.all(Array.from({ length: 5 }, async () => await store.recordFailure('identity:burst', policy, now + 1000)))
    t.same(locks.filter((s) => s > 0).length >= 1, true, 'the fifth failure locks')
    t.equal(await store.lockedFor('identity:burst', now + 1000), 30)
    t.equal(await store.claim('identity:burst', policy, now + 1000), 30, 'and claims are refused')
  })

  await t.test('claims in flight fill only what is left of the window', async (t) => {
    const store = await make()
    const now = Date.now()
    for (let i = 0; i < 3; i++) await failedAttempt(store, 'k', now)
    t.equal(await store.claim('k', policy, now), 0)
    t.equal(await store.claim('k', policy, now), 0)
    t.equal(await store.claim('k', policy, now), 30, 'three failures and two in flight: the window is full')
    await store.refund('k', policy, now)
    t.equal(await store.claim('k', policy, now), 0, 'a success gives its place back')
  })

  await t.test('a refund keeps the failures; only a reset forgets them', async (t) => {
    const store = await make()
    const now = Date.now()
    for (let i = 0; i < 4; i++) await failedAttempt(store, 'address:203.0.113.9', now)
    for (let i = 0; i < 10; i++) {
      t.equal(await store.claim('address:203.0.113.9', policy, now), 0, `good login ${i + 1} goes ahead`)
      await store.refund('address:203.0.113.9', policy, now)
    }
    t.equal(await failedAttempt(store, 'address:203.0.113.9', now), 30, 'the fifth failure still locks after ten successes')
    await store.refund('never-claimed', policy, now)
    t.equal(await store.lockedFor('never-claimed', now), 0, 'a refund of nothing is harmless')
  })

  await t.test('the lock counts from the recorded failure, not from the claim', async (t) => {
    const store = await make()
    const now = Date.now()
    for (let i = 0; i < 4; i++) await failedAttempt(store, 'k', now)
    t.equal(await failedAttempt(store, 'k', now, 8000), 30, 'claimed at now, failed 8 s later')
    t.equal(await store.lockedFor('k', now + 8000), 30, '30 s from the failure')
    t.equal(await store.lockedFor('k', now + 30_000), 8, 'still locked 30 s after the claim')
    t.equal(await store.lockedFor('k', now + 38_000), 0)
  })

  await t.test('past an expired lock, attempts go one at a time', async (t) => {
    const store = await make()
    let now = Date.now()
    for (let i = 0; i < 5; i++) await failedAttempt(store, 'k', now)
    now += 30_000
    t.equal(await store.claim('k', policy, now), 0, 'one attempt after the lock')
    t.equal(await store.claim('k', policy, now), 60, 'a second, concurrent one waits for the doubled lock it would start')
    t.equal(await store.recordFailure('k', policy, now), 60)
  })

  await t.test('a claim whose process died stops holding a place after CLAIM_TTL_MS', async (t) => {
    const store = await make()
    const now = Date.now()
    for (let i = 0; i < 5; i++) t.equal(await store.claim('k', policy, now), 0)
    t.ok(await store.claim('k', policy, now + CLAIM_TTL_MS - 1) > 0, 'still held just before')
    t.equal(await store.claim('k', policy, now + CLAIM_TTL_MS + 1), 0, 'free after')
  })

  await t.test('each claim holds its place for CLAIM_TTL_MS from when it was made', async (t) => {
    const store = await make()
    const now = Date.now()
    for (let i = 0; i < 3; i++) t.equal(await store.claim('k', policy, now), 0)
    for (let i = 0; i < 2; i++) t.equal(await store.claim('k', policy, now + 50_000), 0)
    t.ok(await store.claim('k', policy, now + 50_000) > 0, 'five in flight: full')
    const later = now + CLAIM_TTL_MS + 1
    for (let i = 0; i < 3; i++) t.equal(await store.claim('k', policy, later), 0, 'the three oldest have lapsed, the two later ones still hold')
    t.ok(await store.claim('k', policy, later) > 0, 'and the window is full again')
  })

  await t.test('a lock longer than resetAfter does not wipe the count: the backoff reaches the cap', async (t) => {
    const store = await make()
    let now = Date.now()
    const locks: number[] = []
    for (let i = 0; i < 20; i++) {
      const lock = await failedAttempt(store, 'identity:target', now)
      if (lock > 0) {
        locks.push(lock)
        now += lock * 1000 + 1000 // one guess a second after each lock ends
      }
    }
    t.same(locks.slice(0, 9), [30, 60, 120, 240, 480, 960, 1920, 3840, 7680], 'doubling past resetAfter (3600 s)')
    t.equal(locks.at(-1), 86_400, 'up to the cap')
  })

  await t.test('a failure settles even when a concurrent success reset the key', async (t) => {
    const store = await make()
    const now = Date.now()
    t.equal(await store.claim('identity:x', policy, now), 0)
    t.equal(await store.claim('identity:x', policy, now), 0)
    await store.reset('identity:x')
    t.equal(await store.recordFailure('identity:x', policy, now), 0)
    for (let i = 0; i < 3; i++) await failedAttempt(store, 'identity:x', now)
    t.equal(await failedAttempt(store, 'identity:x', now), 30, 'that failure was the first of five')
  })

  await t.test('failures are forgotten after a quiet resetAfter', async (t) => {
    const store = await make()
    let now = Date.now()
    for (let i = 0; i < 4; i++) await failedAttempt(store, 'k', now)
    now += 3_601_000
    t.equal(await failedAttempt(store, 'k', now), 0, 'four old failures and a new one do not lock')
    for (let i = 0; i < 3; i++) await failedAttempt(store, 'k', now)
    t.equal(await failedAttempt(store, 'k', now), 30, 'five recent failures do')
  })

  await t.test('keys are independent; policies apply per call', async (t) => {
    const store = await make()
    const now = Date.now()
    for (let i = 0; i < 5; i++) await failedAttempt(store, 'identity:a', now)
    t.equal(await store.lockedFor('identity:a', now), 30)
    t.equal(await store.lockedFor('identity:b', now), 0)
    t.equal(await store.claim('identity:b', policy, now), 0)
    const strict = { maxAttempts: 2, backoff: 7, resetAfter: 60 }
    t.equal(await failedAttempt(store, 'address:203.0.113.9', now, 0, strict), 0)
    t.equal(await failedAttempt(store, 'address:203.0.113.9', now, 0, strict), 7)
  })

  await t.test('the lock is capped at a day', async (t) => {
    const store = await make()
    const now = Date.now()
    const steep = { maxAttempts: 1, backoff: 50_000, resetAfter: 200_000 }
    t.equal(await failedAttempt(store, 'k', now, 0, steep), 50_000)
    t.equal(await failedAttempt(store, 'k', now + 50_000_000, 0, steep), 86_400, 'doubled past a day: a day')
  })

  await t.test('a policy at the limits the options allow works; one past them is held to them', async (t) => {
    const store = await make()
    const now = Date.now()
    const { maxAttempts, backoff, resetAfter } = LOCKOUT_LIMITS
    t.equal(await failedAttempt(store, 'identity:most', now, 0, { maxAttempts, backoff, resetAfter }), 0, 'one failure of a million locks nothing')
    const steepest = { maxAttempts: 1, backoff, resetAfter }
    t.equal(await failedAttempt(store, 'identity:steep', now, 0, steepest), MAX_LOCK_SECONDS, 'the longest lock at once')
    const lockEnds = now + MAX_LOCK_SECONDS * 1000
    t.equal(await failedAttempt(store, 'identity:steep', lockEnds + resetAfter * 1000, 0, steepest), MAX_LOCK_SECONDS, 'remembered for resetAfter (a year) after the lock')

    // Past the limits, given to the store directly (the server refuses them at boot).
    t.equal(await failedAttempt(store, 'identity:past', now, 0, { maxAttempts: 2 ** 31, backoff: 1e308, resetAfter: 1e300 }), 0, 'maxAttempts 2^31: held to a million')
    const twice = { maxAttempts: 2, backoff: 1e308, resetAfter: 1e300 }
    t.equal(await failedAttempt(store, 'identity:forgotten', now, 0, twice), 0)
    t.equal(await failedAttempt(store, 'identity:forgotten', now + (resetAfter + 1) * 1000, 0, twice), 0, 'resetAfter held to a year: the first failure is forgotten')
    t.equal(await failedAttempt(store, 'identity:forgotten', now + (resetAfter + 2) * 1000, 0, twice), MAX_LOCK_SECONDS, 'backoff held to a day')
    t.equal(await store.lockedFor('identity:forgotten', now + (resetAfter + 2) * 1000), MAX_LOCK_SECONDS)
  })
}
