// Clocks for tests of expiry. A store or component with a `now` option gets
// a fake clock that only moves when the test says so: what is alive and what
// has expired then does not depend on how fast the machine runs. A store
// whose clock is not ours (Redis) gets the real one, with windows wide enough
// for a busy machine's stalls (D-TOOLING-16).
import { untilPast } from './wait.js'

export interface TestClock {
  /** Now, in ms since the epoch. */
  now: () => number
  /** Moves now past `at`: a fake clock jumps there, the real one waits. */
  passTo: (at: number) => Promise<void>
  /**
   * How far ahead a deadline must be for the record to be certainly alive at
   * the next step: 1 ms on a fake clock; on the real one, room for a stall.
   */
  window: number
}

/** A clock that starts at the real now and moves only by passTo/advance. */
export function fakeClock (start = Date.now()): TestClock & { advance: (ms: number) => void } {
  let now = start
  return {
    now: () => now,
    passTo: async (at: number) => { now = Math.max(now, at + 1) },
    advance: (ms: number) => { now += ms },
    window: 1
  }
}

/** The real clock; `window` (default 1 s) is how long a busy machine may stall between two steps. */
export function realClock (window = 1000): TestClock {
  return { now: () => Date.now(), passTo: untilPast, window }
}

/**
 * For code with no `now` option that reads Date.now(): replaces Date.now
 * with a fake clock until the end of test `t`. Timers are untouched.
 */
export function fakeDateNow (t: { teardown: (fn: () => void) => void }): ReturnType<typeof fakeClock> {
  const real = Date.now
  const clock = fakeClock(real())
  Date.now = clock.now
  t.teardown(() => { Date.now = real })
  return clock
}

/**
 * For code that reads a clock object of its own (`{ now }`: the file
 * stores' stillClock, a monotonic clock): replaces its `now` with a fake
 * clock until the end of test `t`. performance.now(), which the hang
 * ceilings read, is untouched.
 */
export function fakeClockOn (t: { teardown: (fn: () => void) => void }, holder: { now: () => number }): ReturnType<typeof fakeClock> {
  const real = holder.now
  const clock = fakeClock(real())
  holder.now = clock.now
  t.teardown(() => { holder.now = real })
  return clock
}
