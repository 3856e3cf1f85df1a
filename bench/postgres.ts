// The PostgreSQL stores beside the file and memory stores, in one run
// (issue 15): cached and uncached verification, logins, changes with 1 000
// and 1 000 000 rows in the tables, the memory of an instance, and session
// get/set beside Redis. Works in a database of its own on loopback,
// created here and dropped at the end; each part runs in its own process
// (lib/postgres-worker.ts). D-BENCH-06.
//   node --import tsx postgres.ts [--sizes 1000,1000000] [--misses 3000] [--touches 100000]
//     [--part-minutes 6] [--total-minutes 20] [--no-pin] [--write]
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hashPassword } from '@fastify-gatehouse/auth'
import { migrate } from '@fastify-gatehouse/postgres'
import { cleanUpOnce } from './lib/clean-up.js'
import { givenArgs, growingSizes, minutes, publish, RUN_FLAGS, usage, wholeNumber } from './lib/cli.js'
import { PASSWORD } from './lib/growth-seed.js'
import { benchDatabase, onLoopback, seedRows, serverVersion, tableBytes, type BenchDatabase } from './lib/postgres-database.js'
import type { Part, WorkerConfig, WorkerResult } from './lib/postgres-kinds.js'
import { SESSION_OPS, SESSION_ROUNDS, SESSION_STORES, SESSION_WARM, SESSIONS } from './lib/postgres-sessions.js'
import { mainRows, mainTable, sessionTable } from './lib/postgres-table.js'
import { clearPrefix, redisVersion } from './lib/redis-keys.js'
import { commandLine, commitOf, runStart } from './lib/run-header.js'
import { Notes, thousands, type Shown } from './lib/table-cells.js'
import { partCap, Workers } from './lib/workers.js'

const USAGE = 'postgres.ts [--sizes 1000,1000000] [--misses 3000] [--touches 100000] [--part-minutes 6] [--total-minutes 20] [--no-pin] [--write]'
const DEFAULT_SIZES = '1000,1000000'
const OPTIONS = {
  sizes: { type: 'string', default: DEFAULT_SIZES },
  misses: { type: 'string', default: '3000' },
  touches: { type: 'string', default: '100000' },
  'part-minutes': { type: 'string', default: '6' },
  'total-minutes': { type: 'string', default: '20' },
  ...RUN_FLAGS
} as const
const { values } = parseArgs({ options: OPTIONS })
// At least the file and memory stores' 1 000 records; at most what `user-<6 digits>` names.
const sizes = growingSizes('sizes', values.sizes, 1000, 1_000_000, USAGE, 'each column adds rows to the tables of the one before')
const misses = wholeNumber('misses', values.misses, 100, 100_000, USAGE)
const touches = wholeNumber('touches', values.touches, 1000, 1_000_000, USAGE)
const partMs = minutes('part-minutes', values['part-minutes'], 60, USAGE)
const totalMs = minutes('total-minutes', values['total-minutes'], 240, USAGE)
const adminUrl = process.env.GATEHOUSE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const redisUrl = process.env.GATEHOUSE_BENCH_REDIS ?? 'redis://127.0.0.1:6379/0'
if (!onLoopback(adminUrl) || !onLoopback(redisUrl)) usage(USAGE, '$GATEHOUSE_BENCH_POSTGRES and $GATEHOUSE_BENCH_REDIS must be on loopback (127.0.0.1, localhost, ::1): the figures are for loopback')
// The workers on CPU 1, as the growth benchmark's (D-BENCH-02); the servers are not ours to pin.
const workers = new Workers(fileURLToPath(new URL('./lib/postgres-worker.ts', import.meta.url)), { pin: !values['no-pin'], gc: true })

const start = runStart()
const cells = new Map<string, Shown>() // `${row} ${n}`; sessions by row id alone

/** Runs one part in its own process, killed at the part's cap or the run's. */
async function runWorker (config: WorkerConfig): Promise<WorkerResult> {
  return await workers.run<WorkerResult>([JSON.stringify(config)], partCap('part', partMs, totalMs, start.at))
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

const overCap = (): boolean => Date.now() - start.at > totalMs
const notRun = { skipped: `not run: over the ${totalMs / 60_000} min cap of the whole run` }
const MAIN_ROWS = mainRows(touches)
const rowsOf = (part: Part | 'seed'): string[] => MAIN_ROWS.flatMap((row) => typeof row !== 'string' && row[1] === part ? [row[0]] : [])
const sessionIds = SESSION_STORES.flatMap((s) => SESSION_OPS.flatMap((op) => [`session.${s}.${op}`, `session.${s}.${op}.cpu`]))

const dir = await mkdtemp(join(tmpdir(), 'gatehouse-pgbench-'))
const redisPrefix = `gatehouse:bench:${randomBytes(6).toString('hex')}:`
let db: BenchDatabase | undefined
/** Drops the database, the files and the Redis keys of the run: once, whatever ends it. */
const cleanUp = cleanUpOnce(async () => {
  await workers.stop()
  await db?.drop().catch((err: Error) => { console.error(`could not drop ${db!.name}: ${err.message}`) })
  await rm(dir, { recursive: true, force: true })
  await clearPrefix(redisUrl, redisPrefix).catch((err: Error) => { console.error(`could not clear Redis keys ${redisPrefix}*: ${err.message}`) })
})

let versions = ''
try {
  db = await benchDatabase(adminUrl)
  console.error(`database ${db.name}`)
  await migrate({ url: db.url })
  versions = `${await serverVersion(db.url)} · ${await redisVersion(redisUrl).catch(() => 'Redis not answering')}`
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
const args = givenArgs(OPTIONS, values, ['sizes', 'misses', 'touches', 'no-pin'])
const main = mainTable(MAIN_ROWS, sizes, cells, notes)
const session = sessionTable(cells, notes)
const table = [
  `#### The stores at commit ${commitOf()}`,
  '',
  commandLine('postgres.ts', args, start, ` · ${versions}`, workers.pinned ? 'each part in its own process pinned to CPU 1 (the database servers unpinned)' : 'unpinned'),
  '',
  ...main,
  '',
  `Sessions: ${SESSION_ROUNDS} interleaved rounds of ${thousands(SESSIONS)} sessions per store (each created, read and rewritten once), after ${SESSION_WARM} untimed; one call at a time:`,
  '',
  ...session,
  ...notes.section()
].join('\n')
console.log(table)
if (values.write) await publish('postgres:stores', table)
