// Listing one user's sessions as other users' sessions grow (issue 16,
// item 6): listFor of a user with 5 sessions among 10, 1 000 and 100 000
// sessions of others, in MemorySessionStore, RedisSessionStore and
// PostgresSessionStore; with Redis's commandstats and PostgreSQL's plan,
// which show the work on the server's side. Each store in a process of its
// own (lib/session-list-worker.ts); a database and a redis-server of the
// run's own, on loopback, removed at the end.
//   node --import tsx session-list.ts [--others 10,1000,100000] [--calls 2000]
//     [--part-minutes 3] [--total-minutes 8] [--no-pin] [--write]
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { migrate } from '@fastify-gatehouse/postgres'
import { cleanUpOnce } from './lib/clean-up.js'
import { givenArgs, growingSizes, minutes, publish, RUN_FLAGS, usage, wholeNumber } from './lib/cli.js'
import { benchDatabase, onLoopback, serverVersion, type BenchDatabase } from './lib/postgres-database.js'
import { clearPrefix, redisVersion } from './lib/redis-keys.js'
import { ownRedis } from './lib/redis-server.js'
import { commandLine, commitOf, runStart } from './lib/run-header.js'
import { LIST_STORES, type ListStore, type ListWorkerResult } from './lib/session-list-kinds.js'
import { LIMIT, ROUNDS } from './lib/session-list-measure.js'
import { LISTED_SESSIONS, PER_OTHER_USER } from './lib/session-list-seed.js'
import { figure, Notes, showCell, sizeTable, thousands, type Shown } from './lib/table-cells.js'
import { partCap, Workers } from './lib/workers.js'

const USAGE = 'session-list.ts [--others 10,1000,100000] [--calls 2000] [--part-minutes 3] [--total-minutes 8] [--no-pin] [--write]'
const DEFAULT_OTHERS = '10,1000,100000'
const OPTIONS = {
  others: { type: 'string', default: DEFAULT_OTHERS },
  calls: { type: 'string', default: '2000' },
  'part-minutes': { type: 'string', default: '3' },
  'total-minutes': { type: 'string', default: '8' },
  ...RUN_FLAGS
} as const
const { values } = parseArgs({ options: OPTIONS })
const sizes = growingSizes('others', values.others, 10, 1_000_000, USAGE, 'each column adds sessions to the one before')
const calls = wholeNumber('calls', values.calls, 100, 100_000, USAGE)
const partMs = minutes('part-minutes', values['part-minutes'], 60, USAGE)
const totalMs = minutes('total-minutes', values['total-minutes'], 240, USAGE)
const adminUrl = process.env.GATEHOUSE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const sharedRedis = process.env.GATEHOUSE_BENCH_REDIS
if (!onLoopback(adminUrl) || (sharedRedis !== undefined && !onLoopback(sharedRedis))) usage(USAGE, '$GATEHOUSE_BENCH_POSTGRES and $GATEHOUSE_BENCH_REDIS must be on loopback (127.0.0.1, localhost, ::1): the figures are for loopback')
// The workers on CPU 1 (D-BENCH-02); the database servers are not pinned.
const workers = new Workers(fileURLToPath(new URL('./lib/session-list-worker.ts', import.meta.url)), { pin: !values['no-pin'], gc: false })

/** The rows: id (as the workers send them), the store measuring it, the label. */
const ROWS: Array<[string, ListStore, string]> = [
  ['memory.cpu', 'memory', 'MemorySessionStore: listFor, CPU µs/call (0.5 s of CPU after a tenth of that)'],
  ['redis.wall', 'redis', 'RedisSessionStore: listFor, wall µs p50 / p99'],
  ['redis.cpu', 'redis', 'RedisSessionStore: listFor, this process\'s CPU µs/call'],
  ['redis.server', 'redis', 'RedisSessionStore: the script\'s time in Redis (commandstats, EVALSHA µs/call)'],
  ['redis.commands', 'redis', 'RedisSessionStore: commands in Redis per listFor (commandstats delta)'],
  ['pg.wall', 'pg', 'PostgresSessionStore: listFor, wall µs p50 / p99'],
  ['pg.cpu', 'pg', 'PostgresSessionStore: listFor, this process\'s CPU µs/call'],
  ['pg.plan', 'pg', 'PostgresSessionStore: plan of listFor\'s statement (EXPLAIN ANALYZE)'],
  ['pg.pages', 'pg', 'PostgresSessionStore: pages it reads (BUFFERS, shared hit + read)'],
  ['pg.ms', 'pg', 'PostgresSessionStore: its execution time in PostgreSQL (median of 5), ms'],
  ['pg.scanPages', 'pg', 'for scale: the same statement with index scans off (the whole table read), pages'],
  ['pg.scanMs', 'pg', 'for scale: that statement\'s execution time (median of 5), ms']
]

const start = runStart()
const cells = new Map<string, Shown>() // `${row} ${n}`
let plans: Record<string, string> = {}

/** Runs one store's worker, killed at the part's cap or the run's. */
async function runWorker (store: ListStore, url: string, redisUrl: string, redisPrefix: string): Promise<ListWorkerResult> {
  return await workers.run<ListWorkerResult>([JSON.stringify({ store, sizes, url, redisUrl, redisPrefix, calls })], partCap('store', partMs, totalMs, start.at))
}

const redisPrefix = `gatehouse:bench:${randomBytes(6).toString('hex')}:`
let db: BenchDatabase | undefined
let redis: { url: string, stop: () => Promise<void> } | undefined
/** Drops the database and the Redis of the run (or its keys on a shared one): once, whatever ends it. */
const cleanUp = cleanUpOnce(async () => {
  await workers.stop()
  await db?.drop().catch((err: Error) => { console.error(`could not drop ${db!.name}: ${err.message}`) })
  if (sharedRedis !== undefined) await clearPrefix(sharedRedis, redisPrefix).catch((err: Error) => { console.error(`could not clear Redis keys ${redisPrefix}*: ${err.message}`) })
  await redis?.stop()
})

let versions = ''
try {
  db = await benchDatabase(adminUrl)
  console.error(`database ${db.name}`)
  await migrate({ url: db.url })
  redis = sharedRedis === undefined ? await ownRedis() : { url: sharedRedis, stop: async () => {} }
  versions = `${await serverVersion(db.url)} · ${await redisVersion(redis.url)}${sharedRedis === undefined ? ' (a redis-server of the run\'s own)' : ' (shared: its commandstats count others\' commands too)'}`
  for (const store of LIST_STORES) {
    const mine = ROWS.filter(([, s]) => s === store).map(([id]) => id)
    const fill = (n: number, cell: Shown): void => { for (const id of mine) if (!cells.has(`${id} ${n}`)) cells.set(`${id} ${n}`, cell) }
    if (Date.now() - start.at > totalMs) {
      for (const n of sizes) fill(n, { skipped: `not run: over the ${totalMs / 60_000} min cap of the whole run` })
      continue
    }
    console.error(store)
    const result = await runWorker(store, db.url, redis.url, redisPrefix)
    if ('failed' in result) {
      for (const n of sizes) fill(n, { failed: result.failed })
      continue
    }
    if (store === 'pg') plans = result.plans
    for (const [id, cell] of Object.entries(result.cells)) {
      const [row, n] = id.split(' ')
      if (row === '*') {
        if (n === undefined) for (const m of sizes) fill(m, cell)
        else fill(Number(n), cell)
      } else {
        cells.set(id, cell)
      }
    }
    for (const n of sizes) fill(n, { failed: 'not measured' })
  }
} finally {
  await cleanUp()
}

// Failures and skips become notes under the table, each cell pointing at its note; counts are whole.
const notes = new Notes()
const show = (cell: Shown | undefined): string => showCell(cell, notes, (x) => Number.isInteger(x) ? x.toFixed(0) : figure(x))
const args = givenArgs(OPTIONS, values, ['others', 'calls', 'no-pin'])
const largest = sizes.at(-1)!
const table = [
  `#### The stores at commit ${commitOf()}`,
  '',
  commandLine('session-list.ts', args, start, ` · ${versions}`, workers.pinned ? 'each store in its own process pinned to CPU 1 (the database servers unpinned)' : 'unpinned'),
  '',
  `\`listFor(user, ${LIMIT})\` of a user with ${LISTED_SESSIONS} sessions; the columns are the other users' sessions present (${PER_OTHER_USER} each). Redis and PostgreSQL: ${thousands(calls)} calls one at a time, untimed, then ${ROUNDS} rounds of ${thousands(calls)} timed, on loopback; CPU and server times are the medians of the rounds.`,
  '',
  ...sizeTable(sizes.map((n) => `${thousands(n)} others`), ROWS.map(([id, , text]) => [text, sizes.map((n) => show(cells.get(`${id} ${n}`)).replaceAll('|', '\\|'))])),
  ...notes.section(),
  ...(plans[String(largest)] === undefined
    ? []
    : ['', `The plan of listFor's statement with ${thousands(largest)} other sessions (\`explain (analyze, buffers, costs off, timing off)\`):`, '', '```text', plans[String(largest)]!, '```'])
].join('\n')
console.log(table)
if (values.write) await publish('session-list:stores', table)
