// Timing and memory helpers of the growth benchmark (growth.ts): CPU time
// per operation, the event loop's longest stall, the heap after a full GC.
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'

/** This process's CPU time so far (user + system, every thread), in ms. */
export function cpuMs (): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** Limits of one timed loop. */
export interface Budget {
  /** Operations at least (unless the first one fails). */
  minOps: number
  /** Operations at most. */
  maxOps: number
  /** Stop starting new operations after this much wall time (ms). */
  wallMs: number
}

/**
 * Runs `op(k)` for k = 0, 1, … one after another within `budget`, and
 * answers the CPU ms per operation. Every operation's own result check
 * throws, so a wrong answer fails the row instead of timing it.
 */
export async function cpuPerOp (op: (k: number) => unknown, budget: Budget): Promise<number> {
  const wallStart = performance.now()
  const start = cpuMs()
  let k = 0
  while (k < budget.maxOps && (k < budget.minOps || performance.now() - wallStart < budget.wallMs)) {
    await op(k)
    k++
  }
  return (cpuMs() - start) / k
}

/**
 * CPU µs per call of a synchronous `call(k)`, in batches of `batch`, until
 * `cpuBudgetMs` of CPU were spent; the first batches (a tenth of the
 * budget) warm the code up and are not counted.
 */
export function microsPerCall (call: (k: number) => void, cpuBudgetMs: number, batch = 1000): number {
  let k = 0
  const warmUntil = cpuMs() + cpuBudgetMs / 10
  while (cpuMs() < warmUntil) for (let i = 0; i < batch; i++) call(k++)
  const start = cpuMs()
  let calls = 0
  while (cpuMs() - start < cpuBudgetMs) {
    for (let i = 0; i < batch; i++) call(k++)
    calls += batch
  }
  return (cpuMs() - start) * 1000 / calls
}

/** As {@link microsPerCall}, for a call that returns a promise: awaited one at a time. */
export async function microsPerAsyncCall (call: (k: number) => Promise<void>, cpuBudgetMs: number): Promise<number> {
  let k = 0
  const warmUntil = cpuMs() + cpuBudgetMs / 10
  while (cpuMs() < warmUntil) await call(k++)
  const start = cpuMs()
  let calls = 0
  while (cpuMs() - start < cpuBudgetMs) {
    await call(k++)
    calls++
  }
  return (cpuMs() - start) * 1000 / calls
}

/** The median of a few numbers. */
export function median (xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/**
 * Watches the event loop with a 1 ms interval: `stop()` answers the
 * longest gap between two ticks (ms), i.e. the longest time the loop could
 * not run a timer. `tick` runs on every tick (a poll of the store).
 */
export function watchEventLoop (tick: () => void = () => {}): { stop: () => number } {
  let last = performance.now()
  let longest = 0
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
    tick()
  }, 1)
  return {
    stop: () => {
      clearInterval(timer)
      return Math.max(longest, performance.now() - last)
    }
  }
}

/** The longest event-loop gap over `ms` of doing nothing: the machine's own noise. */
export async function idleGap (ms: number): Promise<number> {
  const watch = watchEventLoop()
  await sleep(ms)
  return watch.stop()
}

/** Heap in use after full collections (needs node --expose-gc). */
export async function heapAfterGc (): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error('run node with --expose-gc')
  // Twice, with a turn of the event loop between: finalizers and weak maps settle.
  gc()
  await sleep(10)
  gc()
  return process.memoryUsage().heapUsed
}
