import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { performance } from 'node:perf_hooks'

/**
 * How long (ms) a long job (a reload, a compaction) runs before it lets
 * the event loop serve requests again. D-AUTH-24: well under the 50 ms
 * the issue allows, leaving room for a garbage collection on top.
 */
export const SLICE_MS = 8

/**
 * Splits a long synchronous job into slices: call `due()` often (it costs
 * a clock read) and `await pause()` when it says so.
 */
export class TimeSlice {
  #start = performance.now()

  due (): boolean {
    return performance.now() - this.#start >= SLICE_MS
  }

  async pause (): Promise<void> {
    await yieldToLoop()
    this.#start = performance.now()
  }
}
