import { execFile, fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { Agent, request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Scenario } from './suite.js'

const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url))
const run = promisify(execFile)

function ready (child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once('message', (m: { type: string, port: number }) => { if (m.type === 'ready') resolve(m.port) })
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)))
  })
}

/** Sends `count` requests one after another on the agent's one keep-alive connection. */
async function send (agent: Agent, port: number, scenario: Scenario, prepared: Record<string, string>, count: number): Promise<void> {
  const { method = 'GET', path = '/', perRequest, headers } = scenario.request ?? {}
  const expected = scenario.expectStatus ?? 200
  for (let i = 0; i < count; i++) {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path, agent, headers: { ...headers, ...prepared, ...perRequest?.() } }, (res) => {
        res.resume()
        res.once('end', () => resolve(res.statusCode ?? 0))
      })
      req.once('error', reject)
      req.end()
    })
    if (status !== expected) throw new Error(`status ${status}, expected ${expected}`)
  }
}

/** What one callgrind dump counted. */
export interface Dump {
  /** Instructions, less V8's compiler (see {@link readDump}). */
  readonly counted: number
  /** V8's optimising and lazy compiler (the `Runtime_Compile*` entry points, inclusive), left out of `counted`. */
  readonly compiling: number
  /** V8's full collections (`Heap::MarkCompact`, inclusive), inside `counted`; 0 when none fell in the window. */
  readonly fullGc: number
}

/**
 * The instructions in one callgrind dump, or undefined while valgrind is
 * still writing it. V8's compiler is left out: how many functions are still
 * being compiled after the warm-up varies from run to run, and it is a
 * one-time cost, not what a request costs once the server is warm. A full
 * (mark-compact) collection is reported, not left out: one falling inside
 * the window made a bare count read 153 k instead of 63 k; the caller
 * counts such a window again (D-BENCH-09).
 */
export async function readDump (file: string): Promise<Dump | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '')
  // `totals:` is the last line written; `summary:` is what callgrind_annotate calls the program's total.
  const summary = /^summary: (\d+)/m.exec(text)
  if (summary === null || !/^totals: \d+/m.test(text)) return undefined
  const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { maxBuffer: 64 * 1024 * 1024 })
  let compiling = 0
  let fullGc = 0
  for (const line of stdout.split('\n')) {
    const compiler = /^\s*([\d,]+) .*:v8::internal::Runtime_Compile\w*\(/.exec(line)
    if (compiler !== null) compiling += Number(compiler[1]!.replaceAll(',', ''))
    const collector = /^\s*([\d,]+) .*:v8::internal::Heap::MarkCompact\(\)/.exec(line)
    if (collector !== null) fullGc += Number(collector[1]!.replaceAll(',', ''))
  }
  return { counted: Number(summary[1]) - compiling, compiling, fullGc }
}

/** Waits for dump `file` to be complete (callgrind_control --dump is asynchronous), at most 60 s. */
export async function waitForDump (file: string, what: string): Promise<Dump> {
  for (let i = 0; i < 600; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    const dump = await readDump(file)
    if (dump !== undefined) return dump
  }
  throw new Error(`${what}: no callgrind dump within 60 s`)
}

/** Windows counted per scenario at most: a full GC's repeats and a settling scenario's rounds. */
export const MAX_WINDOWS = 8
/** Two windows this close (relative) are the same count: the scenario has settled. */
export const SETTLED = 0.005

/** A scenario's count: instructions per request and how the windows went. */
export interface Count {
  perRequest: number
  /** Windows counted (each `count` requests, counters zeroed before it). */
  windows: number
  /** Windows a full GC fell in (counted again, not used). */
  fullGcWindows: number
  /** False when {@link MAX_WINDOWS} came before the count settled or before a window without a full GC. */
  settled: boolean
}

const k = (n: number): string => (n / 1000).toFixed(1)

/**
 * Instructions the server executes per request, counted by valgrind's
 * callgrind: the server runs under it, takes `warmup` requests (so that the
 * JIT has compiled the hot path), then windows of `count` requests, each
 * with its counters zeroed before and dumped after. A window a full GC fell
 * in is counted again; a scenario with `settle` (the session ones, which V8 was
 * still compiling after 12 000 requests) windows follow until two in a row
 * agree within {@link SETTLED}. At most {@link MAX_WINDOWS}; each window is
 * reported on stderr. Unlike CPU time this does not move with what else the
 * machine is doing. D-BENCH-03: they settle ties; the targets stay in CPU
 * µs. D-BENCH-09, D-BENCH-10.
 */
export async function countInstructions (suite: string, name: string, scenario: Scenario, warmup: number, count: number): Promise<Count> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-callgrind-'))
  // --single-threaded: V8 compiles and collects on the main thread, where the
  // warm-up absorbs the compiling instead of a background thread finishing it
  // at a moment that varies. A 1 MB young generation: many small scavenges
  // rather than one or two large ones, so that garbage collection is counted
  // in proportion to what a request allocates and not by where a scavenge falls.
  const child = fork(SERVER, [suite, name], {
    execPath: 'valgrind',
    execArgv: ['--tool=callgrind', '--quiet', `--callgrind-out-file=${join(dir, 'cg.out')}`, '--compress-strings=no', process.execPath, '--single-threaded', '--max-semi-space-size=1', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  try {
    const port = await ready(child)
    const prepared = scenario.prepare === undefined ? {} : await scenario.prepare(`http://127.0.0.1:${port}`)
    // One connection throughout: closing one deoptimises the stream code,
    // and its recompilation would land in the measured requests.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const result: Count = { perRequest: 0, windows: 0, fullGcWindows: 0, settled: false }
    let previous: number | undefined
    try {
      await send(agent, port, scenario, prepared, warmup)
      while (result.windows < MAX_WINDOWS) {
        await run('callgrind_control', ['--zero', String(child.pid)])
        await send(agent, port, scenario, prepared, count)
        await run('callgrind_control', [`--dump=window${++result.windows}`, String(child.pid)])
        // valgrind writes the dump (cg.out.<n>) when it next gets control.
        const dump = await waitForDump(join(dir, `cg.out.${result.windows}`), name)
        const perRequest = dump.counted / count
        console.error(`${name}: window ${result.windows}: ${k(perRequest)} k instructions/req (compiler ${k(dump.compiling / count)} k left out), full GC: ${dump.fullGc === 0 ? 'none' : `yes, ${k(dump.fullGc / count)} k/req: counted again`}`)
        if (dump.fullGc > 0) {
          result.fullGcWindows++
          continue
        }
        result.perRequest = perRequest
        if (scenario.settle !== true || (previous !== undefined && Math.abs(perRequest - previous) <= SETTLED * previous)) {
          result.settled = true
          break
        }
        previous = perRequest
      }
    } finally {
      agent.destroy()
    }
    if (result.perRequest === 0) throw new Error(`${name}: a full GC fell in every one of ${MAX_WINDOWS} windows`)
    return result
  } finally {
    child.send('stop')
    await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 30_000))])
    if (child.exitCode === null) child.kill('SIGKILL')
    if (process.env.BENCH_KEEP_CALLGRIND === undefined) await rm(dir, { recursive: true, force: true })
    else console.error(`callgrind output kept in ${dir}`)
  }
}
