import { execFile, fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { MAX_WINDOWS, waitForDump } from './instructions.js'

const run = promisify(execFile)

/**
 * Cases a micro-count worker runs: each is called `n` times in a row. The
 * worker module calls {@link serveCases} with them.
 */
export type Cases = Readonly<Record<string, () => unknown>>

// The worker's side: runs what the counting process asks, over IPC.
let sink: unknown
/** Answers `{ name, n }` messages by running case `name` n times, then `done`. */
export function serveCases (cases: Cases): void {
  process.on('message', (m: { name: string, n: number } | 'stop') => {
    if (m === 'stop') process.exit(0)
    const fn = m.name === 'noop' ? () => m : cases[m.name]!
    for (let i = 0; i < m.n; i++) sink = fn()
    process.send!({ done: m.name, sink: typeof sink })
  })
  process.send!('ready')
}

function reply (child: ChildProcess): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`micro-count worker exited (${code})`))
    child.once('exit', onExit)
    child.once('message', (m) => { child.off('exit', onExit); resolve(m) })
  })
}

/**
 * Instructions per call of each named case of `worker` (a module calling
 * {@link serveCases}), counted by callgrind in one worker process: each case
 * is warmed up (`warmup` calls), the counters zeroed, `n` calls counted and
 * dumped (again when a full GC fell in the window); the same for an empty
 * case, whose count (the IPC round, the loop) is subtracted. V8's compiler is
 * left out as in count.ts (D-BENCH-03).
 */
export async function countCases (worker: string, names: readonly string[], warmup: number, n: number): Promise<Map<string, number>> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-micro-'))
  const child = fork(worker, [], {
    execPath: 'valgrind',
    execArgv: ['--tool=callgrind', '--quiet', `--callgrind-out-file=${join(dir, 'cg.out')}`, '--compress-strings=no', process.execPath, '--single-threaded', '--max-semi-space-size=1', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  let dumps = 0
  const measure = async (name: string): Promise<number> => {
    child.send({ name, n: warmup })
    await reply(child)
    // A window a full GC fell in is counted again (D-BENCH-09).
    for (let window = 1; window <= MAX_WINDOWS; window++) {
      await run('callgrind_control', ['--zero', String(child.pid)])
      child.send({ name, n })
      await reply(child)
      await run('callgrind_control', [`--dump=${name}`, String(child.pid)])
      const dump = await waitForDump(join(dir, `cg.out.${++dumps}`), name)
      if (dump.fullGc === 0) return dump.counted
      console.error(`${name}: window ${window}: a full GC fell in it (${Math.round(dump.fullGc / n)} instructions/call): counted again`)
    }
    throw new Error(`${name}: a full GC fell in every one of ${MAX_WINDOWS} windows`)
  }
  try {
    await reply(child)
    const empty = await measure('noop')
    const counts = new Map<string, number>()
    for (const name of names) {
      counts.set(name, (await measure(name) - empty) / n)
      console.error(`${name}: ${Math.round(counts.get(name)!)} instructions/call`)
    }
    return counts
  } finally {
    child.send('stop')
    await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 30_000))])
    if (child.exitCode === null) child.kill('SIGKILL')
    await rm(dir, { recursive: true, force: true })
  }
}
