// The PostgreSQL stores beside the file and memory stores, in one run
// (issue 15): cached and uncached verification, logins, changes with 1 000
// and 1 000 000 rows in the tables, the memory of an instance, and session
// get/set beside Redis. Works in a database of its own on loopback,
// created here and dropped at the end; each part runs in its own process
// (lib/postgres-worker.ts). D-BENCH-06.
//   node --import tsx postgres.ts [--sizes 1000,1000000] [--misses 3000] [--touches 100000]
//     [--part-minutes 6] [--total-minutes 20] [--no-pin] [--write]
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { hashPassword } from '@fastify-gatehouse/auth'
import { migrate } from '@fastify-gatehouse/postgres'
import { publish, usage, wholeNumber } from './lib/cli.js'
import { PASSWORD } from './lib/growth-seed.js'
import { pinToCpu } from './lib/pin.js'
import { benchDatabase, onLoopback, seedRows, serverVersion, tableBytes, type BenchDatabase } from './lib/postgres-database.js'
import type { Part, WorkerConfig, WorkerResult } from './lib/postgres-kinds.js'
import { SESSION_OPS, SESSION_ROUNDS, SESSION_STORES, SESSION_WARM, SESSIONS } from './lib/postgres-sessions.js'
import { mainRows, mainTable, Notes, sessionTable, type Shown } from './lib/postgres-table.js'

const USAGE = 'postgres.ts [--sizes 1000,1000000] [--misses 3000] [--touches 100000] [--part-minutes 6] [--total-minutes 20] [--no-pin] [--write]'
const DEFAULT_SIZES = '1000,1000000'
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: DEFAULT_SIZES },
    misses: { type: 'string', default: '3000' },
    touches: { type: 'string', default: '100000' },
    'part-minutes': { type: 'string', default: '6' },
    'total-minutes': { type: 'string', default: '20' },
    'no-pin': { type: 'boolean', default: false },
    write: { type: 'boolean', default: false }
  }
})
// At least the file and memory stores' 1 000 records; at most what `user-<6 digits>` names.
const sizes = values.sizes.split(',').map((s) => wholeNumber('sizes', s, 1000, 1_000_000, USAGE))
if (sizes.some((n, i) => i > 0 && n <= sizes[i - 1]!)) usage(USAGE, '--sizes must grow: each column adds rows to the tables of the one before')
const misses = wholeNumber('misses', values.misses, 100, 100_000, USAGE)
const touches = wholeNumber('touches', values.touches, 1000, 1_000_000, USAGE)
const partMs = wholeNumber('part-minutes', values['part-minutes'], 1, 60, USAGE) * 60_000
const totalMs = wholeNumber('total-minutes', values['total-minutes'], 1, 240, USAGE) * 60_000
const adminUrl = process.env.GATEHOUSE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const redisUrl = process.env.GATEHOUSE_BENCH_REDIS ?? 'redis://127.0.0.1:6379/0'
if (!onLoopback(adminUrl) || !onLoopback(redisUrl)) usage(USAGE, '$GATEHOUSE_BENCH_POSTGRES and $GATEHOUSE_BENCH_REDIS must be on loopback (127.0.0.1, localhost, ::1): the figures are for loopback')
// The workers on CPU 1, as the growth benchmark's (D-BENCH-02); the servers are not ours to pin.
const pinned = !values['no-pin'] && cpus().length >= 2

const WORKER = fileURLToPath(new URL('./lib/postgres-worker.ts', import.meta.url))
const started = Date.now()
const loadAtStart = loadavg()[0]!
const cells = new Map<string, Shown>() // `${row} ${n}`; sessions by row id alone
let current: ChildProcess | undefined

/** Runs one part in its own process, killed at the part's cap or the run's. */
async function runWorker (config: WorkerConfig): Promise<WorkerResult> {
  const child = fork(WORKER, [JSON.stringify(config)], { execArgv: ['--expose-gc', '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  current = child
  if (pinned && !pinToCpu(child.pid!, 1)) console.error('taskset could not pin the worker; measuring unpinned')
  let result: WorkerResult = { failed: 'the worker exited without a result' }
  child.on('message', (m) => { result = m as WorkerResult })
  const capMs = Math.min(partMs, totalMs - (Date.now() - started))
  const timer = setTimeout(() => {
    result = { failed: capMs < partMs ? `timed out: over the ${totalMs / 60_000} min cap of the whole run` : `timed out: over the ${partMs / 60_000} min cap per part` }
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

/** Puts a worker's result into the cells of `ids` (`key` makes a row id the map's key). */
function record (result: WorkerResult, ids: readonly string[], key: (id: string) => string): void {
  const fill = (cell: Shown): void => { for (const id of ids) if (!cells.has(key(id))) cells.set(key(id), cell) }
  if ('failed' in result) return fill({ failed: result.failed })
  const { '*': rest, ...measured } = result.rows
  for (const [id, cell] of Object.entries(measured)) cells.set(key(id), cell)
  if (rest !== undefined) fill(rest)
  fill({ failed: 'not measured' })
}

const overCap = (): boolean => Date.now() - started > totalMs
const notRun = { skipped: `not run: over the ${totalMs / 60_000} min cap of the whole run` }
const MAIN_ROWS = mainRows(touches)
const rowsOf = (part: Part | 'seed'): string[] => MAIN_ROWS.flatMap((row) => typeof row !== 'string' && row[1] === part ? [row[0]] : [])
const sessionIds = SESSION_STORES.flatMap((s) => SESSION_OPS.flatMap((op) => [`session.${s}.${op}`, `session.${s}.${op}.cpu`]))

/** Deletes what the run left under its Redis prefix (the stores' own `destroy` removed most). */
async function clearRedis (prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
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

async function redisVersion (): Promise<string> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    return `Redis ${/redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? '?'}`
  } catch {
    return 'Redis not answering'
  } finally {
    redis.disconnect()
  }
}

const dir = await mkdtemp(join(tmpdir(), 'gatehouse-pgbench-'))
const redisPrefix = `gatehouse:bench:${randomBytes(6).toString('hex')}:`
let db: BenchDatabase | undefined
let cleaned: Promise<void> | undefined
/** Drops the database, the files and the Redis keys of the run: once, whatever ends it. */
const cleanUp = (): Promise<void> => (cleaned ??= (async () => {
  current?.kill('SIGKILL')
  if (current !== undefined) await once(current, 'exit').catch(() => {})
  await db?.drop().catch((err: Error) => { console.error(`could not drop ${db!.name}: ${err.message}`) })
  await rm(dir, { recursive: true, force: true })
  await clearRedis(redisPrefix).catch((err: Error) => { console.error(`could not clear Redis keys ${redisPrefix}*: ${err.message}`) })
})())
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { cleanUp().finally(() => process.exit(130)).catch(() => {}) })
}

let versions = ''
try {
  db = await benchDatabase(adminUrl)
  console.error(`database ${db.name}`)
  await migrate({ url: db.url })
  versions = `${await serverVersion(db.url)} · ${await redisVersion()}`
  // One hash with the default parameters, shared by every seeded user (and the file store's).
  const passwordHash = await hashPassword(PASSWORD)
  let seeded = 0
  for (const n of sizes) {
    const key = (id: string): string => `${id} ${n}`
    if (overCap()) {
      for (const part of ['seed', 'calls', 'memory-keys', 'memory-users'] as const) for (const id of rowsOf(part)) cells.set(key(id), notRun)
      continue
    }
    console.error(`seeding to ${n} rows`)
    try {
      cells.set(key('seed'), await seedRows(db.url, seeded, n, passwordHash))
      seeded = n
      cells.set(key('tables'), await tableBytes(db.url) / 2 ** 20)
    } catch (err) {
      for (const part of ['seed', 'calls', 'memory-keys', 'memory-users'] as const) for (const id of rowsOf(part)) if (!cells.has(key(id))) cells.set(key(id), { failed: `seeding: ${(err as Error).message}` })
      continue
    }
    for (const part of ['calls', 'memory-keys', 'memory-users'] as const) {
      if (overCap()) {
        for (const id of rowsOf(part)) cells.set(key(id), notRun)
        continue
      }
      console.error(`${part} n=${n}`)
      record(await runWorker({ part, n, url: db.url, redisUrl, redisPrefix, dir, passwordHash, misses, touches }), rowsOf(part), key)
    }
  }
  if (overCap()) {
    for (const id of sessionIds) cells.set(id, notRun)
  } else {
    console.error('sessions')
    record(await runWorker({ part: 'sessions', n: seeded, url: db.url, redisUrl, redisPrefix, dir, passwordHash, misses, touches }), sessionIds, (id) => id)
  }
} finally {
  await cleanUp()
}

const notes = new Notes()
const commit = (() => { try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() } catch { return 'unknown' } })()
const args = [
  values.sizes === DEFAULT_SIZES ? '' : `--sizes ${values.sizes}`,
  values.misses === '3000' ? '' : `--misses ${values.misses}`,
  values.touches === '100000' ? '' : `--touches ${values.touches}`,
  values['no-pin'] ? '--no-pin' : ''
].filter((a) => a !== '').join(' ')
const main = mainTable(MAIN_ROWS, sizes, cells, notes)
const session = sessionTable(cells, notes)
const table = [
  `#### The stores at commit ${commit}`,
  '',
  `Command: \`pnpm --filter @fastify-gatehouse/bench exec node --import tsx postgres.ts${args === '' ? '' : ` ${args}`}\` (after \`pnpm build\`) · ${new Date().toISOString().slice(0, 10)} · ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'} · Node ${process.version} · ${versions} · load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end, ${((Date.now() - started) / 60_000).toFixed(1)} min${pinned ? ' · each part in its own process pinned to CPU 1 (the database servers unpinned)' : ' · unpinned'}.`,
  '',
  ...main,
  '',
  `Sessions: ${SESSION_ROUNDS} interleaved rounds of ${SESSIONS.toLocaleString('en-US').replaceAll(',', ' ')} sessions per store (each created, read and rewritten once), after ${SESSION_WARM} untimed; one call at a time:`,
  '',
  ...session,
  ...(notes.lines().length === 0 ? [] : ['', ...notes.lines()])
].join('\n')
console.log(table)
if (values.write) await publish('postgres:stores', table)
