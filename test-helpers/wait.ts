// How tests wait. A step that takes 50 ms on an idle machine can take 30 s
// on a loaded 2-core one, so no test waits a fixed time for something to
// happen: it polls for the condition itself, and gives up only at a ceiling
// that bounds a hang, never a slow machine.
//
// The tests of every package import this folder by relative path: it is not
// a package, depends on none, and is never published (D-TOOLING-13).
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * How long any wait in a test may last before it counts as a hang: 3 minutes
 * by default, GATEHOUSE_TEST_CEILING_MS to change it. Below tap's per-file
 * timeout (.taprc), so a hang fails with a message naming what it waited for.
 * D-TOOLING-14.
 */
export const HANG_CEILING_MS = ceilingFromEnv(process.env.GATEHOUSE_TEST_CEILING_MS)

/**
 * A `callbackTimeout` (seconds, the largest allowed) for tests that are not
 * about time limits but send bursts of password work: on a loaded 2-core
 * machine a burst of logins queues for scrypt longer than the 5 s default,
 * and a 503 `GATEHOUSE_AUTH_CALLBACK_TIMEOUT` would then fail a test about
 * something else. The time-limit tests set their own small limits.
 */
export const UNHURRIED_CALLBACK_TIMEOUT_S = 300

function ceilingFromEnv (value: string | undefined): number {
  if (value === undefined || value === '') return 180_000
  const ms = Number(value)
  if (!Number.isInteger(ms) || ms < 1) throw new Error(`GATEHOUSE_TEST_CEILING_MS must be a whole number of milliseconds, not ${JSON.stringify(value)}`)
  return ms
}

export interface WaitOptions {
  /** Give up after this many ms (default HANG_CEILING_MS). */
  ceilingMs?: number
  /** Poll every this many ms (default 10). */
  everyMs?: number
  /** What is waited for, for the error message. */
  what?: string
}

/**
 * Polls `condition` until it holds; rejects naming `what` once `ceilingMs`
 * pass. Resolves with how many ms it took.
 */
export async function waitUntil (condition: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<number> {
  const { ceilingMs = HANG_CEILING_MS, everyMs = 10, what = 'a condition' } = options
  // Not Date.now(): a test that fakes it (clock.ts, fakeDateNow) still gets its ceiling (D-TOOLING-21).
  const start = performance.now()
  while (!(await condition())) {
    if (performance.now() - start > ceilingMs) throw new Error(`waited ${ceilingMs} ms for ${what}: it never came (a hang; GATEHOUSE_TEST_CEILING_MS sets the ceiling)`)
    await sleep(everyMs)
  }
  return Math.round(performance.now() - start)
}

/** Like waitUntil, but resolves false instead of rejecting at the ceiling (for `t.ok(await eventually(…))`). */
export async function eventually (condition: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<boolean> {
  try {
    await waitUntil(condition, options)
    return true
  } catch {
    return false
  }
}

/** An AbortSignal for a request that should answer: it aborts only at the hang ceiling. */
export function hangSignal (ceilingMs = HANG_CEILING_MS): AbortSignal {
  return AbortSignal.timeout(ceilingMs)
}

/**
 * Resolves once Date.now() is past `at`: for a test that needs a deadline
 * behind it (an expiry). Only a lower bound, which a slow machine can only
 * overshoot; a test that also needs something to be still alive before the
 * deadline should use an injected clock instead (see clock.ts).
 */
export async function untilPast (at: number): Promise<void> {
  while (Date.now() <= at) await sleep(Math.min(50, at - Date.now() + 1))
}
