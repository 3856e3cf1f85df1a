// The embedded stores as they grow: per-operation cost, reload stall and
// memory per record of the file and memory stores from 10 to 100 000
// records, through their public APIs only (the same script measures the
// stores before and after a rewrite). Each store kind at each size runs in
// its own process (lib/growth-worker.ts).
//   node --import tsx growth.ts --label before|after [--sizes 10,100,…] [--only kind,…]
//     [--size-minutes 6] [--seed-minutes 3] [--total-minutes 60] [--no-pin] [--write]
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { givenArgs, minutes, publish, RUN_FLAGS, usage, wholeNumber } from './lib/cli.js'
import { KINDS, type Kind, type WorkerResult } from './lib/growth-kinds.js'
import { commandLine, commitOf, runStart } from './lib/run-header.js'
import { Notes, showCell, sizeTable, thousands, type Shown } from './lib/table-cells.js'
import { capPer, Workers } from './lib/workers.js'

const DEFAULT_SIZES = '10,100,1000,10000,50000,100000'
const USAGE = `growth.ts --label before|after [--sizes ${DEFAULT_SIZES}] [--only ${KINDS.join(',')}] [--size-minutes 6] [--seed-minutes 3] [--total-minutes 60] [--no-pin] [--write]`
const OPTIONS = {
  label: { type: 'string' },
  sizes: { type: 'string', default: DEFAULT_SIZES },
  only: { type: 'string' },
  'size-minutes': { type: 'string', default: '6' },
  'seed-minutes': { type: 'string', default: '3' },
  'total-minutes': { type: 'string', default: '60' },
  ...RUN_FLAGS
} as const
const { values } = parseArgs({ options: OPTIONS })
const label = values.label
if (label !== 'before' && label !== 'after') usage(USAGE, '--label is before or after: which table of docs/benchmarks.md this run is')
const sizes = values.sizes.split(',').map((s) => wholeNumber('sizes', s, 10, 200_000, USAGE))
const kinds = (values.only?.split(',') ?? [...KINDS]) as Kind[]
const unknown = kinds.filter((k) => !KINDS.includes(k))
if (unknown.length > 0) usage(USAGE, `no store kind ${unknown.join(', ')}; there are ${KINDS.join(', ')}`)
const sizeMs = minutes('size-minutes', values['size-minutes'], 60, USAGE)
const seedMs = minutes('seed-minutes', values['seed-minutes'], 60, USAGE)
const totalMs = minutes('total-minutes', values['total-minutes'], 240, USAGE)
// Workers on CPU 1, the process that makes the watched change on CPU 0 (D-BENCH-02).
const workers = new Workers(fileURLToPath(new URL('./lib/growth-worker.ts', import.meta.url)), { pin: !values['no-pin'], gc: true })

/** The rows of the table: id (as the workers send them), the store kind measuring it, the label. */
const ROWS: Array<[string, Kind, string]> = [
  ['keys.file', 'file-keys', 'FileApiKeyStore: file size, MiB'],
  ['keys.open', 'file-keys', 'FileApiKeyStore: open, CPU ms'],
  ['keys.memory', 'file-keys', 'FileApiKeyStore: heap per key, bytes'],
  ['keys.verify', 'file-keys', 'FileApiKeyStore: verify (from memory), CPU µs/call'],
  ['keys.issue', 'file-keys', 'FileApiKeyStore: issue + first verify, CPU ms/op'],
  ['keys.revoke', 'file-keys', 'FileApiKeyStore: revoke + first verify, CPU ms/op'],
  ['keys.stall', 'file-keys', 'FileApiKeyStore: longest event-loop stall while another process revokes a key (median of 3), ms'],
  ['keys.seen', 'file-keys', 'FileApiKeyStore: that revoke seen after, ms'],
  ['keys.flush', 'file-keys', 'FileApiKeyStore: last-use write-back, close() after ≤ 1 024 keys used, CPU ms'],
  ['mkeys.seed', 'memory-keys', 'MemoryApiKeyStore: seeding, add() × n, CPU s'],
  ['mkeys.memory', 'memory-keys', 'MemoryApiKeyStore: heap per key, bytes'],
  ['mkeys.verify', 'memory-keys', 'MemoryApiKeyStore: verify, CPU µs/call'],
  ['mkeys.issue', 'memory-keys', 'MemoryApiKeyStore: issue + first verify, CPU ms/op'],
  ['mkeys.revoke', 'memory-keys', 'MemoryApiKeyStore: revoke + first verify, CPU ms/op'],
  ['users.file', 'file-users', 'FileUserStore: file size, MiB'],
  ['users.open', 'file-users', 'FileUserStore: open, CPU ms'],
  ['users.memory', 'file-users', 'FileUserStore: heap per user, bytes'],
  ['users.loginFresh', 'file-users', 'FileUserStore: login store work, fresh view (verify − scrypt floor), CPU µs'],
  ['users.loginStale', 'file-users', 'FileUserStore: login store work, stale view (file checked on the login), CPU µs'],
  ['users.floor', 'file-users', 'scrypt floor (N=16, r=1, p=1: verifyPassword alone), CPU µs'],
  ['users.add', 'file-users', 'FileUserStore: add (cheap scrypt) + first get, CPU ms/op'],
  ['users.disable', 'file-users', 'FileUserStore: disable + first standing, CPU ms/op'],
  ['users.stall', 'file-users', 'FileUserStore: longest event-loop stall while another process disables a user (median of 3), ms'],
  ['users.seen', 'file-users', 'FileUserStore: that change seen after, ms'],
  ['musers.memory', 'memory-users', 'MemoryUserStore: heap per user, bytes'],
  ['musers.login', 'memory-users', 'MemoryUserStore: login store work (verify − scrypt floor), CPU µs'],
  ['sessions.memory', 'sessions', 'MemorySessionStore: heap per signed-in session, bytes'],
  ['sessions.get', 'sessions', 'MemorySessionStore: get, CPU µs/call'],
  ['stall.idle', 'file-keys', 'for scale: longest event-loop gap of an idle second (median of 3), ms']
]

/** Runs one kind at one size in its own process, killed at the size cap. */
async function runWorker (kind: Kind, n: number): Promise<WorkerResult> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-growth-'))
  try {
    return await workers.run<WorkerResult>([kind, String(n), dir, String(seedMs), workers.pinned ? '1' : '0'], capPer('size', sizeMs))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const start = runStart()
const cells = new Map<string, Shown>() // `${row} ${n}`
let seedSeconds: { n: number, s: number } | undefined
for (const n of sizes) {
  for (const kind of kinds) {
    const mine = ROWS.filter(([, k]) => k === kind).map(([id]) => id)
    const fill = (cell: Shown): void => { for (const id of mine) if (!cells.has(`${id} ${n}`)) cells.set(`${id} ${n}`, cell) }
    if (Date.now() - start.at > totalMs) {
      fill({ skipped: `not run: over the ${totalMs / 60_000} min cap of the whole run` })
      continue
    }
    // Seeding a memory key store was O(n²): do not start one predicted to pass the seeding cap.
    if (kind === 'memory-keys' && seedSeconds !== undefined) {
      const predicted = seedSeconds.s * (n / seedSeconds.n) ** 2
      if (predicted * 1000 > seedMs) {
        fill({ skipped: `not measured: seeding ${n} keys would take ~${Math.round(predicted / 60)} min at the O(n²) of the last size (${seedSeconds.s.toFixed(1)} s for ${seedSeconds.n}), over the ${seedMs / 60_000} min cap` })
        continue
      }
    }
    console.error(`${kind} n=${n}`)
    const result = await runWorker(kind, n)
    if ('failed' in result) fill({ failed: result.failed })
    else {
      const { '*': rest, ...measured } = result.rows
      for (const [id, cell] of Object.entries(measured)) cells.set(`${id} ${n}`, cell)
      if (rest !== undefined) fill(rest)
      const seed = measured['mkeys.seed']
      if (kind === 'memory-keys' && typeof seed === 'number') seedSeconds = { n, s: seed }
    }
    fill({ skipped: 'not measured' })
  }
}

// Failures and skips become notes under the table, each cell pointing at its note.
const notes = new Notes()
const args = givenArgs(OPTIONS, values, ['label', 'sizes', 'only', 'no-pin'])
const rows = ROWS.filter(([, kind]) => kinds.includes(kind))
const table = [
  `#### ${label === 'before' ? 'Before' : 'After'}: the stores at commit ${commitOf()}`,
  '',
  commandLine('growth.ts', args, start, '', workers.pinned ? 'each store in its own process pinned to CPU 1, the other process of the stall rows to CPU 0' : 'unpinned'),
  '',
  ...sizeTable(sizes.map(thousands), rows.map(([id, , text]) => [text, sizes.map((n) => showCell(cells.get(`${id} ${n}`), notes))])),
  ...notes.section()
].join('\n')
console.log(table)
if (values.write) await publish(`growth:${label}`, table)
