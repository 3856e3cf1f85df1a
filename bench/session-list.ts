// Listing one user's sessions as other users' sessions grow (issue 16,
// item 6): listFor of a user with 5 sessions among 10, 1 000 and 100 000
// sessions of others, in MemorySessionStore, RedisSessionStore and
// PostgresSessionStore; with Redis's commandstats and PostgreSQL's plan,
// which show the work on the server's side. Each store in a process of its
// own (lib/session-list-worker.ts); a database and a redis-server of the
// run's own, on loopback, removed at the end.
//   node --import tsx session-list.ts [--others 10,1000,100000] [--calls 2000]
//     [--part-minutes 3] [--total-minutes 8] [--no-pin] [--write]
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { migrate } from '@fastify-gatehouse/postgres'
import { publish, usage, wholeNumber } from './lib/cli.js'
import { pinToCpu } from './lib/pin.js'
import { benchDatabase, onLoopback, serverVersion, type BenchDatabase } from './lib/postgres-database.js'
import { ownRedis } from './lib/redis-server.js'
import { LIST_STORES, type ListCell, type ListStore, type ListWorkerResult } from './lib/session-list-kinds.js'
import { LIMIT, ROUNDS } from './lib/session-list-measure.js'
import { LISTED_SESSIONS, PER_OTHER_USER } from './lib/session-list-seed.js'

const USAGE = 'session-list.ts [--others 10,1000,100000] [--calls 2000] [--part-minutes 3] [--total-minutes 8] [--no-pin] [--write]'
const DEFAULT_OTHERS = '10,1000,100000'
const { values } = parseArgs({
  options: {
    others: { type: 'string', default: DEFAULT_OTHERS },
    calls: { type: 'string', default: '2000' },
    'part-minutes': { type: 'string', default: '3' },
    'total-minutes': { type: 'string', default: '8' },
    'no-pin': { type: 'boolean', default: false },
    write: { type: 'boolean', default: false }
  }
})
const sizes = values.others.split(',').map((s) => wholeNumber('others', s, 10, 1_000_000, USAGE))
if (sizes.some((n, i) => i > 0 && n <= sizes[i - 1]!)) usage(USAGE, '--others must grow: each column adds sessions to the one before')
const calls = wholeNumber('calls', values.calls, 100, 100_000, USAGE)
const partMs = wholeNumber('part-minutes', values['part-minutes'], 1, 60, USAGE) * 60_000
const totalMs = wholeNumber('total-minutes', values['total-minutes'], 1, 240, USAGE) * 60_000
const adminUrl = process.env.GATEHOUSE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const sharedRedis = process.env.GATEHOUSE_BENCH_REDIS
if (!onLoopback(adminUrl) || (sharedRedis !== undefined && !onLoopback(sharedRedis))) usage(USAGE, '$GATEHOUSE_BENCH_POSTGRES and $GATEHOUSE_BENCH_REDIS must be on loopback (127.0.0.1, localhost, ::1): the figures are for loopback')
// The workers on CPU 1 (D-BENCH-02); the database servers are not pinned.
const pinned = !values['no-pin'] && cpus().length >= 2

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

const WORKER = fileURLToPath(new URL('./lib/session-list-worker.ts', import.meta.url))
const started = Date.now()
const loadAtStart = loadavg()[0]!
const cells = new Map<string, ListCell | { skipped: string }>() // `${row} ${n}`
let plans: Record<string, string> = {}
let current: ChildProcess | undefined

/** Runs one store's worker, killed at the part's cap or the run's. */
async function runWorker (store: ListStore, url: string, redisUrl: string, redisPrefix: string): Promise<ListWorkerResult> {
  const child = fork(WORKER, [JSON.stringify({ store, sizes, url, redisUrl, redisPrefix, calls })], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  current = child
  if (pinned && !pinToCpu(child.pid!, 1)) console.error('taskset could not pin the worker; measuring unpinned')
  let result: ListWorkerResult = { failed: 'the worker exited without a result' }
  child.on('message', (m) => { result = m as ListWorkerResult })
  const capMs = Math.min(partMs, totalMs - (Date.now() - started))
  const timer = setTimeout(() => {
    result = { failed: capMs < partMs ? `timed out: over the ${totalMs / 60_000} min cap of the whole run` : `timed out: over the ${partMs / 60_000} min cap per store` }
    child.kill('SIGKILL')
  }, Math.max(capMs, 0))
  try {
    await once(child, 'exit')
  } finally {
    clearTimeout(timer)
    current = undefined
  }
  return result
}

/** Deletes what the run left under its Redis prefix on a shared Redis. */
async function clearRedis (url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      if (keys.length > 0) await redis.del(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}

async function redisVersion (url: string): Promise<string> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    return `Redis ${/redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? '?'}`
  } finally {
    redis.disconnect()
  }
}

const redisPrefix = `gatehouse:bench:${randomBytes(6).toString('hex')}:`
let db: BenchDatabase | undefined
let redis: { url: string, stop: () => Promise<void> } | undefined
let cleaned: Promise<void> | undefined
/** Drops the database and the Redis of the run (or its keys on a shared one): once, whatever ends it. */
const cleanUp = (): Promise<void> => (cleaned ??= (async () => {
  current?.kill('SIGKILL')
  if (current !== undefined) await once(current, 'exit').catch(() => {})
  await db?.drop().catch((err: Error) => { console.error(`could not drop ${db!.name}: ${err.message}`) })
  if (sharedRedis !== undefined) await clearRedis(sharedRedis, redisPrefix).catch((err: Error) => { console.error(`could not clear Redis keys ${redisPrefix}*: ${err.message}`) })
  await redis?.stop()
})())
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { cleanUp().finally(() => process.exit(130)).catch(() => {}) })
}

let versions = ''
try {
  db = await benchDatabase(adminUrl)
  console.error(`database ${db.name}`)
  await migrate({ url: db.url })
  redis = sharedRedis === undefined ? await ownRedis() : { url: sharedRedis, stop: async () => {} }
  versions = `${await serverVersion(db.url)} · ${await redisVersion(redis.url)}${sharedRedis === undefined ? ' (a redis-server of the run\'s own)' : ' (shared: its commandstats count others\' commands too)'}`
  for (const store of LIST_STORES) {
    const mine = ROWS.filter(([, s]) => s === store).map(([id]) => id)
    const fill = (n: number, cell: ListCell | { skipped: string }): void => { for (const id of mine) if (!cells.has(`${id} ${n}`)) cells.set(`${id} ${n}`, cell) }
    if (Date.now() - started > totalMs) {
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

// Failures and skips become notes under the table, each cell pointing at its note.
const notes: string[] = []
const noteOf = (text: string): string => {
  let at = notes.indexOf(text)
  if (at === -1) at = notes.push(text) - 1
  return String.fromCharCode(97 + (at % 26)) + (at >= 26 ? String(at) : '')
}
const figure = (x: number): string => Number.isInteger(x) || x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toPrecision(2)
const show = (cell: ListCell | { skipped: string } | undefined): string => {
  if (cell === undefined) return ''
  if (typeof cell === 'number') return figure(cell)
  if (typeof cell === 'string') return cell
  if ('skipped' in cell) return `n/m (${noteOf(cell.skipped)})`
  return cell.failed.startsWith('not measured') ? `n/m (${noteOf(cell.failed)})` : `✗ (${noteOf(cell.failed)})`
}
const thousands = (n: number): string => n.toLocaleString('en-US').replaceAll(',', ' ')
const commit = (() => { try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() } catch { return 'unknown' } })()
const args = [
  values.others === DEFAULT_OTHERS ? '' : `--others ${values.others}`,
  values.calls === '2000' ? '' : `--calls ${values.calls}`,
  values['no-pin'] ? '--no-pin' : ''
].filter((a) => a !== '').join(' ')
const largest = sizes.at(-1)!
const table = [
  `#### The stores at commit ${commit}`,
  '',
  `Command: \`pnpm --filter @fastify-gatehouse/bench exec node --import tsx session-list.ts${args === '' ? '' : ` ${args}`}\` (after \`pnpm build\`) · ${new Date().toISOString().slice(0, 10)} · ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'} · Node ${process.version} · ${versions} · load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end, ${((Date.now() - started) / 60_000).toFixed(1)} min${pinned ? ' · each store in its own process pinned to CPU 1 (the database servers unpinned)' : ' · unpinned'}.`,
  '',
  `\`listFor(user, ${LIMIT})\` of a user with ${LISTED_SESSIONS} sessions; the columns are the other users' sessions present (${PER_OTHER_USER} each). Redis and PostgreSQL: ${thousands(calls)} calls one at a time, untimed, then ${ROUNDS} rounds of ${thousands(calls)} timed, on loopback; CPU and server times are the medians of the rounds.`,
  '',
  `| measurement | ${sizes.map((n) => `${thousands(n)} others`).join(' | ')} |`,
  `| --- | ${sizes.map(() => '---:').join(' | ')} |`,
  ...ROWS.map(([id, , text]) => `| ${text} | ${sizes.map((n) => show(cells.get(`${id} ${n}`)).replaceAll('|', '\\|')).join(' | ')} |`),
  ...(notes.length === 0 ? [] : ['', ...notes.map((text) => `- (${noteOf(text)}) ${text.replaceAll('|', '\\|')}`)]),
  ...(plans[String(largest)] === undefined
    ? []
    : ['', `The plan of listFor's statement with ${thousands(largest)} other sessions (\`explain (analyze, buffers, costs off, timing off)\`):`, '', '```text', plans[String(largest)]!, '```'])
].join('\n')
console.log(table)
if (values.write) await publish('session-list:stores', table)
