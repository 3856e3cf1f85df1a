// Timing helpers of the PostgreSQL benchmark (postgres.ts), beside the
// growth benchmark's (growth-measure.ts): per-call CPU time that lets the
// event loop turn, latency percentiles of calls made one at a time, and
// CPU + wall time per change.
import { performance } from 'node:perf_hooks'
import { cpuMs, median, type Budget } from './growth-measure.js'

const turn = (): Promise<void> => new Promise((resolve) => { setImmediate(resolve) })

/**
 * CPU µs per call of `call(k)` (awaited when it answers a promise), in
 * batches of `batch` with a turn of the event loop between them, until
 * `cpuBudgetMs` of CPU were spent inside batches; a tenth of that first
 * warms the code up. Only the batches are counted: the turns between them
 * run the PostgreSQL stores' change listener, whose heartbeat keeps their
 * cache entries trusted (growth-measure's `microsPerCall` never lets the
 * loop turn, and after a second every entry would be read again).
 * D-BENCH-06.
 */
export async function microsPerCallTurning (call: (k: number) => unknown, cpuBudgetMs: number, batch = 500): Promise<{ micros: number, calls: number }> {
  let k = 0
  const runBatch = async (): Promise<void> => {
    for (let i = 0; i < batch; i++) {
      const answer = call(k++)
      if (answer instanceof Promise) await answer
    }
  }
  const warmUntil = cpuMs() + cpuBudgetMs / 10
  while (cpuMs() < warmUntil) {
    await runBatch()
    await turn()
  }
  let spent = 0
  let calls = 0
  while (spent < cpuBudgetMs) {
    const start = cpuMs()
    await runBatch()
    spent += cpuMs() - start
    calls += batch
    await turn()
  }
  return { micros: spent * 1000 / calls, calls }
}

/** The q-quantile (0–1) of sorted numbers, nearest rank. */
export function quantile (sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('no samples')
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/** Latencies of calls made one at a time: wall ms each (sorted), and the process's CPU µs per call. */
export interface Latencies {
  readonly wallMs: readonly number[]
  readonly cpuMicros: number
}

/**
 * Runs `call(k)` `warmup` times untimed, then `count` times one after
 * another, timing each (wall) and all of them together (this process's CPU).
 */
export async function latencies (call: (k: number) => Promise<unknown>, count: number, warmup: number): Promise<Latencies> {
  let k = 0
  for (let i = 0; i < warmup; i++) await call(k++)
  const wallMs: number[] = []
  const cpu = cpuMs()
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    await call(k++)
    wallMs.push(performance.now() - start)
  }
  const cpuMicros = (cpuMs() - cpu) * 1000 / count
  return { wallMs: wallMs.sort((a, b) => a - b), cpuMicros }
}

/** CPU ms per operation (mean) and wall ms per operation (median) of a run of changes. */
export interface OpCost {
  readonly cpuMs: number
  readonly wallMs: number
  readonly ops: number
}

/**
 * Runs `op(k)` for k = 0, 1, … one after another within `budget` (as
 * growth-measure's `cpuPerOp`), timing each: the process's CPU time over
 * all of them, and each one's wall time (a change waits on its disk or its
 * database, which CPU time does not show).
 */
export async function costPerOp (op: (k: number) => Promise<unknown>, budget: Budget): Promise<OpCost> {
  const wallStart = performance.now()
  const wall: number[] = []
  const cpu = cpuMs()
  let k = 0
  while (k < budget.maxOps && (k < budget.minOps || performance.now() - wallStart < budget.wallMs)) {
    const start = performance.now()
    await op(k)
    wall.push(performance.now() - start)
    k++
  }
  return { cpuMs: (cpuMs() - cpu) / k, wallMs: median(wall), ops: k }
}

/** Runs `work` on at most `width` items at a time; resolves when all are done (rejects with the first failure). */
export async function inParallel<T> (items: readonly T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane))
}
