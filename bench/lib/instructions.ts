import { execFile, fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
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

/**
 * The instructions in the callgrind dumps in `dir` whose name has `part`,
 * less those spent in V8's compiler (the `Runtime_Compile*` entry points,
 * inclusive): how many functions are still being compiled after the warm-up
 * varies from run to run, and it is a one-time cost, not what a request
 * costs once the server is warm. 0 while no dump is complete.
 */
async function instructionsIn (dir: string, part: string): Promise<number> {
  const files = (await readdir(dir)).filter((f) => f.includes(part))
  let total = 0
  for (const file of files) {
    const counted = await instructionsInDump(join(dir, file))
    if (counted === 0) return 0
    total += counted
  }
  return total
}

/** The instructions in one callgrind dump, less V8's compiler (see above); 0 while the dump is incomplete. */
export async function instructionsInDump (file: string): Promise<number> {
  const text = await readFile(file, 'utf8')
  // `totals:` is the last line written; `summary:` is what callgrind_annotate calls the program's total.
  const summary = /^summary: (\d+)/m.exec(text)
  if (summary === null || !/^totals: \d+/m.test(text)) return 0
  const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { maxBuffer: 64 * 1024 * 1024 })
  let compiling = 0
  for (const line of stdout.split('\n')) {
    const compiler = /^\s*([\d,]+) .*:v8::internal::Runtime_Compile\w*\(/.exec(line)
    if (compiler !== null) compiling += Number(compiler[1]!.replaceAll(',', ''))
  }
  return Number(summary[1]) - compiling
}

/**
 * Instructions the server executes per request, counted by valgrind's
 * callgrind: the server runs under it, takes `warmup` requests (so that the
 * JIT has compiled the hot path), has its counters zeroed, takes `count`
 * more, and dumps. Unlike CPU time this does not move with what else the
 * machine is doing. D-BENCH-03: they settle ties; the targets stay in CPU µs.
 */
export async function countInstructions (suite: string, name: string, scenario: Scenario, warmup: number, count: number): Promise<number> {
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
    try {
      await send(agent, port, scenario, prepared, warmup)
      await run('callgrind_control', ['--zero', String(child.pid)])
      await send(agent, port, scenario, prepared, count)
      await run('callgrind_control', ['--dump=measured', String(child.pid)])
    } finally {
      agent.destroy()
    }
    // valgrind writes the dump (cg.out.1) when it next gets control; wait for
    // its last line, which carries the total.
    let measured = 0
    for (let i = 0; i < 600 && measured === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      measured = await instructionsIn(dir, 'cg.out.')
    }
    if (measured === 0) throw new Error(`${name}: no callgrind dump within 60 s`)
    return measured / count
  } finally {
    child.send('stop')
    await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 30_000))])
    if (child.exitCode === null) child.kill('SIGKILL')
    if (process.env.BENCH_KEEP_CALLGRIND === undefined) await rm(dir, { recursive: true, force: true })
    else console.error(`callgrind output kept in ${dir}`)
  }
}
