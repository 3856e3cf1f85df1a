// Instructions per lookup in auth's SecretTable (static bearer tokens and
// Basic credentials) at 1..16 entries, scanned in constant time and looked
// up by SHA-256: where the two cross sets SCAN_BUDGET. Counted under callgrind
// in one worker process (bench/lib/micro.ts).
//   node --import tsx scan-limit.ts [--warmup 20000] [--lookups 20000] [--sizes 1,2,4] [--write]
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { SCAN_BUDGET } from '../packages/auth/src/secret-table.js'
import { publish, wholeNumber } from './lib/cli.js'
import { countCases } from './lib/micro.js'
import { caseName, KINDS, MAX_ENTRIES } from './lib/scan-limit-worker.js'

const USAGE = 'scan-limit.ts [--warmup N] [--lookups N] [--sizes a,b] [--write]'
const { values } = parseArgs({
  options: {
    warmup: { type: 'string', default: '20000' },
    lookups: { type: 'string', default: '20000' },
    sizes: { type: 'string' },
    write: { type: 'boolean', default: false }
  }
})
const warmup = wholeNumber('warmup', values.warmup, 1000, 1_000_000, USAGE)
const lookups = wholeNumber('lookups', values.lookups, 1000, 1_000_000, USAGE)

const sizes = values.sizes === undefined
  ? Array.from({ length: MAX_ENTRIES }, (_, i) => i + 1)
  : values.sizes.split(',').map((n) => wholeNumber('sizes', n, 1, MAX_ENTRIES, USAGE))
const names = Object.keys(KINDS).flatMap((kind) => sizes.flatMap((n) => [caseName(kind, 'scan', n), caseName(kind, 'hash', n)]))
const worker = fileURLToPath(new URL('./lib/scan-limit-worker.ts', import.meta.url))
const counts = await countCases(worker, names, warmup, lookups)

const k = (n: number) => Math.round(n).toString()
const cell = (kind: string, n: number) => {
  const scan = counts.get(caseName(kind, 'scan', n))!
  const hash = counts.get(caseName(kind, 'hash', n))!
  return `${k(scan)} | ${k(hash)}`
}
const table = [
  '### Static secrets: constant-time scan against SHA-256 lookup, instructions per lookup',
  '',
  `Command: \`pnpm --filter @fastify-gatehouse/bench exec node --import tsx scan-limit.ts --warmup ${warmup} --lookups ${lookups}${values.sizes === undefined ? '' : ` --sizes ${values.sizes}`}\` (needs valgrind) · ${new Date().toISOString().slice(0, 10)} · Node ${process.version} · one worker under \`valgrind --tool=callgrind\` with \`node --single-threaded --max-semi-space-size=1\`; each case warmed up, counters zeroed, ${lookups} lookups of the last entry's secret counted, an empty case's count subtracted; SCAN_BUDGET at the time: ${SCAN_BUDGET} characters (entries × candidate length).`,
  '',
  '| entries | 43-char token: scan | token: SHA-256 | Basic credential (32 chars): scan | Basic: SHA-256 |',
  '| ---: | ---: | ---: | ---: | ---: |',
  ...sizes.map((n) => `| ${n} | ${cell('token', n)} | ${cell('basic', n)} |`)
].join('\n')
console.log(table)
if (values.write) await publish('scan-limit', table)
