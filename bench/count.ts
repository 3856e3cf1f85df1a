// Counts the instructions each scenario's server executes per request, under
// valgrind's callgrind: a measure that, unlike CPU time, does not move with
// what else a shared machine is doing, for overheads of a few µs.
//   node --import tsx count.ts <suite> [--warmup 12000] [--requests 3000] [--only a,b] [--write]
import { parseArgs } from 'node:util'
import { loadSuite, publish, selectScenarios, wholeNumber } from './lib/cli.js'
import { countInstructions, SETTLED } from './lib/instructions.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    warmup: { type: 'string', default: '12000' },
    requests: { type: 'string', default: '3000' },
    write: { type: 'boolean', default: false },
    only: { type: 'string' }
  }
})
const USAGE = 'count.ts <suite> [--warmup N] [--requests N] [--only a,b] [--write]'
const { name: suiteName, suite } = await loadSuite(positionals, USAGE)
const warmup = wholeNumber('warmup', values.warmup, 100, 50_000, USAGE)
const requests = wholeNumber('requests', values.requests, 100, 50_000, USAGE)
const names = selectScenarios(suite, values.only, USAGE)

const counts = new Map<string, number>()
// Windows counted again (a full GC in them) or counted until settled, said under the table.
const notes: string[] = []
for (const name of names) {
  const count = await countInstructions(suiteName, name, suite.scenarios[name]!, warmup, requests)
  counts.set(name, count.perRequest)
  console.error(`${name}: ${Math.round(count.perRequest)} instructions/req`)
  const label = suite.scenarios[name]!.label
  if (count.fullGcWindows > 0) notes.push(`${label}: a full GC fell in ${count.fullGcWindows} of ${count.windows} windows, which were counted again.`)
  if (suite.scenarios[name]!.settle === true) notes.push(count.settled ? `${label}: settled after ${count.windows} windows.` : `${label}: not settled after ${count.windows} windows; the last is given.`)
}

const base = counts.get(suite.baseline)!
const k = (n: number) => (n / 1000).toFixed(1)
const command = `pnpm --filter @fastify-gatehouse/bench exec node --import tsx count.ts ${suiteName} --warmup ${warmup} --requests ${requests}${values.only === undefined ? '' : ` --only ${values.only}`}`
const table = [
  `### ${suite.title}: instructions per request`,
  '',
  `Command: \`${command}\` (after \`pnpm build\`; needs valgrind) · ${new Date().toISOString().slice(0, 10)} · Node ${process.version} · server under \`valgrind --tool=callgrind\` with \`node --single-threaded --max-semi-space-size=1\`; one keep-alive connection, requests one after another; counters zeroed after the warm-up; a window with a full GC in it counted again${names.some((name) => suite.scenarios[name]!.settle === true) ? `; session scenarios counted in windows until two agree within ${SETTLED * 100} %` : ''}.`,
  '',
  '| scenario | k instructions/req | × bare | Δ k instructions/req vs bare |',
  '| --- | ---: | ---: | ---: |',
  ...[...counts].map(([name, n]) => `| ${suite.scenarios[name]!.label} | ${k(n)} | ${(n / base).toFixed(3)} | ${name === suite.baseline ? '—' : (n - base >= 0 ? '+' : '') + k(n - base)} |`),
  ...(notes.length === 0 ? [] : ['', ...notes.map((note) => `- ${note}`)])
].join('\n')
console.log(table)

if (values.write) await publish(`count:${suiteName}`, table)
