// Runs one benchmark suite: every scenario in its own server process, the
// load from this one, scenarios interleaved over several rounds.
//   node --import tsx run.ts <suite> [--seconds 5] [--rounds 2] [--connections 10] [--no-pin] [--write]
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import { loadSuite, publish, selectScenarios, wholeNumber } from './lib/cli.js'
import { measure, type Measurement } from './lib/measure.js'
import { pinToCpu } from './lib/pin.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    write: { type: 'boolean', default: false },
    'no-pin': { type: 'boolean', default: false },
    only: { type: 'string' }
  }
})
const USAGE = 'run.ts <suite> [--seconds N] [--rounds N] [--connections N] [--only a,b] [--no-pin] [--write]'
const { name: suiteName, suite } = await loadSuite(positionals, USAGE)
const seconds = wholeNumber('seconds', values.seconds, 1, 60, USAGE)
const rounds = wholeNumber('rounds', values.rounds, 1, 10, USAGE)
const connections = wholeNumber('connections', values.connections, 1, 100, USAGE)
const selected = selectScenarios(suite, values.only, USAGE)
// The load generator (this process) on CPU 0, each server on CPU 1.
const pinned = !values['no-pin'] && pinToCpu(process.pid, 0)
if (!values['no-pin'] && !pinned) console.error('not pinned: needs taskset and two CPUs; measuring unpinned')

const runs = new Map<string, Measurement[]>()
for (let round = 1; round <= rounds; round++) {
  // Alternate the direction each round so that drift (heat, other load)
  // does not favour the scenarios measured first.
  const names = [...selected]
  if (round % 2 === 0) names.reverse()
  for (const name of names) {
    const scenario = suite.scenarios[name]!
    const m = await measure(suiteName, name, scenario, seconds, connections, pinned ? 1 : undefined)
    if (m.non2xx > 0 || m.errors > 0) throw new Error(`${name}: ${m.non2xx} unexpected statuses, ${m.errors} errors`)
    runs.set(name, [...(runs.get(name) ?? []), m])
    console.error(`round ${round} ${name}: ${m.reqPerSec.toFixed(0)} req/s, p99 ${m.p99Ms} ms, ${m.cpuMicrosPerRequest.toFixed(1)} µs CPU/req`)
  }
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); const mid = s.length >> 1; return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2 }
const summary = new Map([...runs].map(([name, ms]) => [name, {
  reqPerSec: median(ms.map((m) => m.reqPerSec)),
  p99Ms: median(ms.map((m) => m.p99Ms)),
  cpu: median(ms.map((m) => m.cpuMicrosPerRequest)),
  // The spread over rounds, so that a reader can see what a difference of medians is worth.
  cpuMin: Math.min(...ms.map((m) => m.cpuMicrosPerRequest)),
  cpuMax: Math.max(...ms.map((m) => m.cpuMicrosPerRequest))
}]))
const base = summary.get(suite.baseline)!
const command = `pnpm --filter @fastify-gatehouse/bench exec node --import tsx run.ts ${suiteName} --seconds ${seconds} --rounds ${rounds} --connections ${connections}${values.only === undefined ? '' : ` --only ${values.only}`}${values['no-pin'] ? ' --no-pin' : ''}`
const lines = [
  `### ${suite.title}`,
  '',
  `Command: \`${command}\` (after \`pnpm build\`) · ${new Date().toISOString().slice(0, 10)} · ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'} · Node ${process.version} · ${connections} connections, ${seconds} s per run, ${rounds} interleaved rounds, medians${pinned ? '; server pinned to CPU 1, load generator to CPU 0' : ''}.`,
  '',
  '| scenario | req/s | × bare req/s | p99 ms | server CPU µs/req | rounds min–max | Δ CPU µs/req vs bare |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...[...summary].map(([name, s]) => `| ${suite.scenarios[name]!.label} | ${s.reqPerSec.toFixed(0)} | ${(s.reqPerSec / base.reqPerSec).toFixed(2)} | ${s.p99Ms} | ${s.cpu.toFixed(1)} | ${s.cpuMin.toFixed(1)}–${s.cpuMax.toFixed(1)} | ${name === suite.baseline ? '—' : (s.cpu - base.cpu >= 0 ? '+' : '') + (s.cpu - base.cpu).toFixed(1)} |`)
]
const table = lines.join('\n')
console.log(table)

if (values.write) await publish(`bench:${suiteName}`, table)
