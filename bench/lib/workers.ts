// The runner's side of a benchmark's workers (growth.ts, basic-growth.ts,
// postgres.ts, session-list.ts): each kind or part forked into a process
// of its own, one at a time, pinned to CPU 1 (D-BENCH-02) and killed at a
// cap; its last message is its result.
import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { cpus } from 'node:os'
import { pinToCpu } from './pin.js'

/** How long one worker may take, and the note its cells get when it takes longer. */
export interface Cap {
  readonly ms: number
  readonly timedOut: string
}

/** The same cap for every worker: `ms` per `what` (a size, a part, a store). */
export const capPer = (what: string, ms: number): Cap => ({ ms, timedOut: `timed out: over the ${ms / 60_000} min cap per ${what}` })

/** A part's cap: `partMs`, or what is left of the whole run's `totalMs` since `started` when that is less. */
export function partCap (what: string, partMs: number, totalMs: number, started: number): Cap {
  const ms = Math.min(partMs, totalMs - (Date.now() - started))
  return ms < partMs ? { ms, timedOut: `timed out: over the ${totalMs / 60_000} min cap of the whole run` } : capPer(what, partMs)
}

export class Workers {
  /** Whether the workers are pinned: asked for (no `--no-pin`) and there is a CPU 1. */
  readonly pinned: boolean
  readonly #script: string
  readonly #execArgv: string[]
  #current: ChildProcess | undefined

  /**
   * @param script the worker's file (run with tsx)
   * @param options `pin`: pin each worker to CPU 1 when there are two CPUs; `gc`: run it with `--expose-gc` (heap figures)
   */
  constructor (script: string, options: { pin: boolean, gc: boolean }) {
    this.#script = script
    this.#execArgv = options.gc ? ['--expose-gc', '--import', 'tsx'] : ['--import', 'tsx']
    this.pinned = options.pin && cpus().length >= 2
  }

  /** Runs the worker with `args` until it exits or `cap` kills it; answers its last message, or why there is none. */
  async run<R> (args: readonly string[], cap: Cap): Promise<R | { failed: string }> {
    const child = fork(this.#script, args, { execArgv: this.#execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    this.#current = child
    if (this.pinned && !pinToCpu(child.pid!, 1)) console.error('taskset could not pin the worker; measuring unpinned')
    let result: R | { failed: string } = { failed: 'the worker exited without a result' }
    child.on('message', (m) => { result = m as R })
    const timer = setTimeout(() => {
      result = { failed: cap.timedOut }
      child.kill('SIGKILL')
    }, Math.max(cap.ms, 0))
    try {
      await once(child, 'exit')
    } finally {
      clearTimeout(timer)
      this.#current = undefined
    }
    return result
  }

  /** Kills the worker running now, if any, and waits for it to exit (the run is ending). */
  async stop (): Promise<void> {
    const child = this.#current
    if (child === undefined) return
    child.kill('SIGKILL')
    await once(child, 'exit').catch(() => {})
  }
}
