// Basic authentication from a user store as the store grows (issue 17's
// `basic: { users: store }`): per request, a credential answered from the
// verified-credential cache (re-checked with the store's `standing`) and one
// that misses it (the store's `verify`), the longest event-loop stall with
// requests in flight, and the heap, for MemoryUserStore, FileUserStore and
// PostgresUserStore holding 10 to 100 000 users; and the verified-credential
// cache itself as it fills to 100 000 entries; and the memory lockout store
// holding 10 to 100 000 keys. Each kind at each size runs
// in its own process (lib/basic-growth-worker.ts); PostgreSQL in a database
// of the run's own, dropped at the end.
//   node --import tsx basic-growth.ts [--sizes 10,100,…] [--only kind,…] [--size-minutes 3] [--total-minutes 15] [--no-pin] [--write]
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hashPassword } from '@fastify-gatehouse/auth'
import { migrate } from '@fastify-gatehouse/postgres'
import { KINDS, type Kind, type WorkerConfig, type WorkerResult } from './lib/basic-growth-kinds.js'
import { cleanUpOnce } from './lib/clean-up.js'
import { givenArgs, growingSizes, minutes, publish, RUN_FLAGS, usage } from './lib/cli.js'
import { CHEAP_SCRYPT, PASSWORD } from './lib/growth-seed.js'
import { benchDatabase, onLoopback, serverVersion, sql, type BenchDatabase } from './lib/postgres-database.js'
import { commandLine, commitOf, runStart } from './lib/run-header.js'
import { Notes, showCell, sizeTable, thousands, type Shown } from './lib/table-cells.js'
import { capPer, Workers } from './lib/workers.js'

const DEFAULT_SIZES = '10,100,1000,10000,100000'
const USAGE = `basic-growth.ts [--sizes ${DEFAULT_SIZES}] [--only ${KINDS.join(',')}] [--size-minutes 3] [--total-minutes 15] [--no-pin] [--write]`
const OPTIONS = {
  sizes: { type: 'string', default: DEFAULT_SIZES },
  only: { type: 'string' },
  'size-minutes': { type: 'string', default: '3' },
  'total-minutes': { type: 'string', default: '15' },
  ...RUN_FLAGS
} as const
const { values } = parseArgs({ options: OPTIONS })
const sizes = growingSizes('sizes', values.sizes, 10, 200_000, USAGE, 'each column adds users to the database of the one before')
const kinds = (values.only?.split(',') ?? [...KINDS]) as Kind[]
const unknown = kinds.filter((k) => !KINDS.includes(k))
if (unknown.length > 0) usage(USAGE, `no kind ${unknown.join(', ')}; there are ${KINDS.join(', ')}`)
const sizeMs = minutes('size-minutes', values['size-minutes'], 60, USAGE)
const totalMs = minutes('total-minutes', values['total-minutes'], 240, USAGE)
const adminUrl = process.env.GATEHOUSE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres'
if (kinds.includes('postgres') && !onLoopback(adminUrl)) usage(USAGE, '$GATEHOUSE_BENCH_POSTGRES must be on loopback (127.0.0.1, localhost, ::1): the figures are for loopback')
// Workers on CPU 1, as the growth benchmark's (D-BENCH-02); the database server is not ours to pin.
const workers = new Workers(fileURLToPath(new URL('./lib/basic-growth-worker.ts', import.meta.url)), { pin: !values['no-pin'], gc: true })

const N16 = 'N=16, r=1, p=1'
/** The rows of the table: id (as the workers send them), the kind measuring it, the label; a string alone is a heading row. */
const ROWS: Array<[string, Kind, string] | string> = [
  '**A Basic request through `AuthCore.authenticate` with `basic: { users: store }`, users hashed with ' + N16 + ' (the store\'s cost, not scrypt\'s)**',
  ...(['memory', 'file', 'postgres'] as const).flatMap((k): Array<[string, Kind, string]> => {
    const name = { memory: 'MemoryUserStore', file: 'FileUserStore', postgres: 'PostgresUserStore' }[k]
    return [
      [`${k}.hit`, k, `${name}: cached credential (+ \`standing\`), CPU µs`],
      [`${k}.miss`, k, `${name}: not cached (\`verify\`, scrypt included), CPU µs`],
      [`${k}.missWall`, k, `${name}: not cached, wall µs per request (median of 300, one at a time)`],
      [`${k}.stall`, k, `${name}: longest event-loop stall, 64 cached + 8 uncached requests in flight for 1 s (median of 3), ms`],
      [`${k}.heap`, k, `${name}: heap of the store and two AuthCores (1 024 credentials cached), MiB`]
    ]
  }),
  ['memory.floor', 'memory', `scrypt floor (${N16}: \`verifyPassword\` alone), CPU µs`],
  ['idle', 'memory', 'for scale: longest event-loop gap of an idle second (median of 3), ms'],
  '**The verified-credential cache filled to n (`basicCache: { max: n }`, MemoryUserStore)**',
  ['cache.heap', 'cache', 'heap per cached credential, bytes'],
  ['cache.hit', 'cache', 'request answered from the cache, going round all n (+ `standing`), CPU µs'],
  ['bounded.get', 'cache', '`BoundedCache` alone, n entries: `get`, CPU µs/call'],
  ['bounded.set', 'cache', '`BoundedCache` alone, full at n: `set` of a new key (replaces a sampled entry, D-AUTH-57), CPU µs/call'],
  '**The lockout store holding n keys (`MemoryLockoutStore({ max: n, maxLocked: n })`, the server login\'s policy: 5 attempts, 30 s, 1 h)**',
  ['lockout.heapOpen', 'lockout', 'heap per key counting (one failure), bytes'],
  ['lockout.heapLocked', 'lockout', 'heap per key locked (5 failures), bytes'],
  ['lockout.claimOpen', 'lockout', 'a login\'s claim (+ `refund`) of a counting key, going round all n, CPU µs/call'],
  ['lockout.claimLocked', 'lockout', 'a claim of a locked key (refused), going round all n, CPU µs/call'],
  ['lockout.newName', 'lockout', 'a failed login of a new name, n counting keys held (evicts the least recently changed), CPU µs/call'],
  ['lockout.full', 'lockout', 'a claim refused because n locked keys fill `maxLocked` (fails closed, D-LOCKOUT-10), CPU µs/call'],
  ['lockout.stall', 'lockout', 'longest event-loop stall, failed logins of new names 256 per turn for 1 s (median of 3), ms'],
  ['lockout.idle', 'lockout', 'for scale: longest event-loop gap of an idle second (median of 3), ms']
]

const start = runStart()
const runWorker = async (config: WorkerConfig): Promise<WorkerResult> => await workers.run<WorkerResult>([JSON.stringify(config)], capPer('size', sizeMs))

const dir = await mkdtemp(join(tmpdir(), 'gatehouse-basic-growth-'))
let db: BenchDatabase | undefined
/** Ends the worker, drops the database and removes the files: once, whatever ends the run. */
const cleanUp = cleanUpOnce(async () => {
  await workers.stop()
  await db?.drop().catch((err: Error) => { console.error(`could not drop ${db!.name}: ${err.message}`) })
  await rm(dir, { recursive: true, force: true })
})

const cells = new Map<string, Shown>() // `${row} ${n}`
let postgresVersion = ''
try {
  let seeded = 0
  const hash = await hashPassword(PASSWORD, CHEAP_SCRYPT)
  if (kinds.includes('postgres')) {
    db = await benchDatabase(adminUrl)
    await migrate({ url: db.url })
    postgresVersion = ` · ${await serverVersion(db.url)}`
  }
  for (const n of sizes) {
    if (db !== undefined) {
      // Users seeded - n - 1 added in one statement (growth-seed's names, one shared hash), triggers off: no store listens yet.
      await sql(db.url, 'begin', 'alter table gatehouse.users disable trigger user',
        [`insert into gatehouse.users (identity, tags, enabled, password_hash, created_at, updated_at)
          select 'user-' || lpad(i::text, 6, '0'), '{staff}', true, $3, now(), now() from generate_series($1::int, $2::int - 1) as i`, [seeded, n, hash]],
        'alter table gatehouse.users enable trigger user', 'commit', 'vacuum analyze gatehouse.users')
      seeded = n
    }
    for (const kind of kinds) {
      const mine = ROWS.flatMap((r) => typeof r !== 'string' && r[1] === kind ? [r[0]] : [])
      const fill = (cell: Shown): void => { for (const id of mine) if (!cells.has(`${id} ${n}`)) cells.set(`${id} ${n}`, cell) }
      if (Date.now() - start.at > totalMs) {
        fill({ skipped: `not run: over the ${totalMs / 60_000} min cap of the whole run` })
        continue
      }
      console.error(`${kind} n=${n}`)
      const result = await runWorker({ kind, n, dir, ...(kind === 'postgres' ? { url: db!.url } : {}) })
      if ('failed' in result) fill({ failed: result.failed })
      else {
        const { '*': rest, ...measured } = result.rows
        for (const [id, cell] of Object.entries(measured)) cells.set(`${id} ${n}`, cell)
        if (rest !== undefined) fill(rest)
      }
      fill({ skipped: 'not measured' })
    }
  }
} finally {
  await cleanUp()
}

// Failures and skips become notes under the table, each cell pointing at its note (as growth.ts).
const notes = new Notes()
const args = givenArgs(OPTIONS, values, ['sizes', 'only', 'no-pin'])
// The rows of the kinds run, each heading only when a row under it is.
const rows: typeof ROWS = []
let heading: string | undefined
for (const r of ROWS) {
  if (typeof r === 'string') heading = r
  else if (kinds.includes(r[1])) {
    if (heading !== undefined) rows.push(heading)
    heading = undefined
    rows.push(r)
  }
}
const table = [
  `#### ${values.only === undefined ? 'Basic from a user store' : `Basic growth, ${kinds.join(' and ')} only,`} at commit ${commitOf()}`,
  '',
  commandLine('basic-growth.ts', args, start, postgresVersion, workers.pinned ? 'each kind at each size in its own process pinned to CPU 1 (PostgreSQL unpinned)' : 'unpinned'),
  '',
  ...sizeTable(sizes.map(thousands), rows.map((r) => typeof r === 'string' ? r : [r[2], sizes.map((n) => showCell(cells.get(`${r[0]} ${n}`), notes))])),
  ...notes.section()
].join('\n')
console.log(table)
// A run of some kinds only is a table of its own: it never replaces the whole run's rows.
if (values.write) await publish(values.only === undefined ? 'growth:basic' : `growth:basic:${kinds.join('+')}`, table)
