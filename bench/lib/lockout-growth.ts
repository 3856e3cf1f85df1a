// The lockout column of the Basic growth benchmark (basic-growth.ts, kind
// `lockout`): MemoryLockoutStore holding n keys, counting and locked, as a
// login sees it (claim, then the outcome), through its public API only
// (D-BENCH-05). Every call is synchronous, so a figure is CPU µs per call
// and the event-loop stall is what a flood of failed logins does to it.
import { performance } from 'node:perf_hooks'
import { setImmediate as turn } from 'node:timers/promises'
import { MemoryLockoutStore, type LockoutPolicy } from '@fastify-gatehouse/auth'
import { heapAfterGc, idleGap, median, microsPerCall, watchEventLoop } from './growth-measure.js'
import { identityOf } from './growth-seed.js'
import { check, type Rows } from './worker-rows.js'

// The server login's defaults (maxAttempts 5, backoff 30 s, resetAfter 1 h).
const POLICY: LockoutPolicy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }
const CALL_CPU_MS = 250
const ROUNDS = 3
// The flood: failed logins of new names, this many per turn of the event loop, for this long.
const FLOOD_BATCH = 256
const FLOOD_MS = 1000

/** A failed login's store work: the claim, then the failure recorded. */
function failedLogin (store: MemoryLockoutStore, key: string, now: number): number {
  const retryAfter = store.claim(key, POLICY, now)
  if (retryAfter > 0) return retryAfter
  return store.recordFailure(key, POLICY, now)
}

/** Round after round of `call`, interleaved by the caller; the median. */
function medianMicros (call: (k: number) => void): number {
  return median(Array.from({ length: ROUNDS }, () => microsPerCall(call, CALL_CPU_MS)))
}

/**
 * Heap per key counting (one failure each) and per key locked
 * (`maxAttempts` failures), a failed login on each kind of key going round
 * all n, a login of a new name into a store full of counting keys (evicts
 * the least recently changed), a claim refused because the locked keys are
 * at `maxLocked` (the store fails closed), and the longest event-loop stall
 * while a flood of failed logins of new names runs for a second.
 */
export async function lockoutRows (rows: Rows<number>, n: number): Promise<void> {
  const now = Date.now()
  const names = Array.from({ length: n }, (_v, i) => `${identityOf(i)}@203.0.113.${i % 256}`)
  // A stride prime to n goes round every key, in an order unlike the fill's.
  const stride = n > 7919 && n % 7919 !== 0 ? 7919 : 1

  let heap = await heapAfterGc()
  const open = new MemoryLockoutStore({ max: n, maxLocked: n })
  for (const name of names) failedLogin(open, name, now)
  check(open.sizes.open === n && open.sizes.locked === 0, `${JSON.stringify(open.sizes)} after one failure for each of ${n} names`)
  await rows.row('lockout.heapOpen', async () => (await heapAfterGc() - heap) / n)

  heap = await heapAfterGc()
  const locked = new MemoryLockoutStore({ max: n, maxLocked: n })
  for (const name of names) for (let f = 0; f < POLICY.maxAttempts; f++) failedLogin(locked, name, now)
  check(locked.sizes.locked === n && locked.sizes.open === 0, `${JSON.stringify(locked.sizes)} after ${POLICY.maxAttempts} failures for each of ${n} names`)
  await rows.row('lockout.heapLocked', async () => (await heapAfterGc() - heap) / n)

  // Counting keys stay counting: `now` does not move, and resetAfter forgets nothing.
  await rows.row('lockout.claimOpen', () => medianMicros((k) => {
    const key = names[(k * stride) % n]!
    check(open.claim(key, POLICY, now) === 0, 'a counting key was refused')
    open.refund(key, POLICY, now)
  }))
  await rows.row('lockout.claimLocked', () => medianMicros((k) => {
    check(locked.claim(names[(k * stride) % n]!, POLICY, now) > 0, 'a locked key was not refused')
  }))
  let fresh = 0
  await rows.row('lockout.newName', () => medianMicros(() => {
    check(failedLogin(open, `new-${fresh++}`, now) === 0, 'a new name was refused')
  }))
  check(open.sizes.open === n, `the store holds ${open.sizes.open} counting keys, not its max ${n}`)
  await rows.row('lockout.full', () => medianMicros(() => {
    check(locked.claim(`other-${fresh++}`, POLICY, now) > 0, 'a claim was granted with every locked place taken')
  }))

  await rows.row('lockout.stall', async () => {
    const stalls: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      const watch = watchEventLoop()
      const until = performance.now() + FLOOD_MS
      while (performance.now() < until) {
        const at = Date.now()
        for (let i = 0; i < FLOOD_BATCH; i++) failedLogin(open, `flood-${fresh++}`, at)
        await turn()
      }
      stalls.push(watch.stop())
    }
    return median(stalls)
  })
  // The machine's own noise, to read the stall against.
  await rows.row('lockout.idle', async () => median([await idleGap(1000), await idleGap(1000), await idleGap(1000)]))
}
