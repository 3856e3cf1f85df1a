// The embedded stores as they grow: per-operation cost, reload stall and
// memory per record of the file and memory stores from 10 to 100 000
// records, through their public APIs only (the same script measures the
// stores before and after a rewrite). Each store kind at each size runs in
// its own process (lib/growth-worker.ts).
//   node --import tsx growth.ts --label before|after [--sizes 10,100,…] [--only kind,…]
//     [--size-minutes 6] [--seed-minutes 3] [--total-minutes 60] [--no-pin] [--write]
import { execFileSync, fork } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { publish, usage, wholeNumber } from './lib/cli.js'
import { KINDS, type Cell, type Kind, type WorkerResult } from './lib/growth-kinds.js'
import { pinToCpu } from './lib/pin.js'

const USAGE = 'growth.ts --label before|after [--sizes 10,100,1000,10000,50000,100000] [--only ' + KINDS.join(',') + '] [--size-minutes 6] [--seed-minutes 3] [--total-minutes 60] [--no-pin] [--write]'
const { values } = parseArgs({
  options: {
    label: { type: 'string' },
    sizes: { type: 'string', default: '10,100,1000,10000,50000,100000' },
    only: { type: 'string' },
    'size-minutes': { type: 'string', default: '6' },
    'seed-minutes': { type: 'string', default: '3' },
    'total-minutes': { type: 'string', default: '60' },
    'no-pin': { type: 'boolean', default: false },
    write: { type: 'boolean', default: false }
  }
})
const label = values.label
if (label !== 'before' && label !== 'after') usage(USAGE, '--label is before or after: which table of docs/benchmarks.md this run is')
const sizes = values.sizes.split(',').map((s) => wholeNumber('sizes', s, 10, 200_000, USAGE))
const kinds = (values.only?.split(',') ?? [...KINDS]) as Kind[]
const unknown = kinds.filter((k) => !KINDS.includes(k))
if (unknown.length > 0) usage(USAGE, `no store kind ${unknown.join(', ')}; there are ${KINDS.join(', ')}`)
const sizeMs = wholeNumber('size-minutes', values['size-minutes'], 1, 60, USAGE) * 60_000
const seedMs = wholeNumber('seed-minutes', values['seed-minutes'], 1, 60, USAGE) * 60_000
const totalMs = wholeNumber('total-minutes', values['total-minutes'], 1, 240, USAGE) * 60_000
// Workers on CPU 1, the process that makes the watched change on CPU 0 (D-BENCH-02).
const pinned = !values['no-pin'] && cpus().length >= 2

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

const WORKER = fileURLToPath(new URL('./lib/growth-worker.ts', import.meta.url))

/** Runs one kind at one size in its own process, killed at the size cap. */
async function runWorker (kind: Kind, n: number): Promise<WorkerResult> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-growth-'))
  const child = fork(WORKER, [kind, String(n), dir, String(seedMs), pinned ? '1' : '0'], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  if (pinned && !pinToCpu(child.pid!, 1)) console.error('taskset could not pin the worker; measuring unpinned')
  let result: WorkerResult = { failed: 'the worker exited without a result' }
  child.on('message', (m) => { result = m as WorkerResult })
  const timer = setTimeout(() => {
    result = { failed: `timed out: over the ${sizeMs / 60_000} min cap per size` }
    child.kill('SIGKILL')
  }, sizeMs)
  try {
    await once(child, 'exit')
  } finally {
    clearTimeout(timer)
    await rm(dir, { recursive: true, force: true })
  }
  return result
}

const started = Date.now()
const loadAtStart = loadavg()[0]!
const cells = new Map<string, Cell | { skipped: string }>() // `${row} ${n}`
let seedSeconds: { n: number, s: number } | undefined
for (const n of sizes) {
  for (const kind of kinds) {
    const mine = ROWS.filter(([, k]) => k === kind).map(([id]) => id)
    const fill = (cell: Cell | { skipped: string }): void => { for (const id of mine) if (!cells.has(`${id} ${n}`)) cells.set(`${id} ${n}`, cell) }
    if (Date.now() - started > totalMs) {
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
const notes: string[] = []
const noteOf = (text: string): string => {
  let at = notes.indexOf(text)
  if (at === -1) at = notes.push(text) - 1
  return String.fromCharCode(97 + (at % 26)) + (at >= 26 ? String(at) : '')
}
const figure = (x: number): string => x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toPrecision(2)
const show = (cell: Cell | { skipped: string } | undefined): string => {
  if (cell === undefined) return ''
  if (typeof cell === 'number') return figure(cell)
  if ('skipped' in cell) return `n/m (${noteOf(cell.skipped)})`
  return cell.failed.startsWith('not measured') ? `n/m (${noteOf(cell.failed)})` : `✗ (${noteOf(cell.failed)})`
}
const thousands = (n: number): string => n.toLocaleString('en-US').replaceAll(',', ' ')
const commit = (() => { try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() } catch { return 'unknown' } })()
const args = [
  `--label ${label}`,
  values.sizes === '10,100,1000,10000,50000,100000' ? '' : `--sizes ${values.sizes}`,
  values.only === undefined ? '' : `--only ${values.only}`,
  values['no-pin'] ? '--no-pin' : ''
].filter((a) => a !== '').join(' ')
const rows = ROWS.filter(([, kind]) => kinds.includes(kind))
const table = [
  `#### ${label === 'before' ? 'Before' : 'After'}: the stores at commit ${commit}`,
  '',
  `Command: \`pnpm --filter @fastify-gatehouse/bench exec node --import tsx growth.ts ${args}\` (after \`pnpm build\`) · ${new Date().toISOString().slice(0, 10)} · ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'} · Node ${process.version} · load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end, ${((Date.now() - started) / 60_000).toFixed(1)} min${pinned ? ' · each store in its own process pinned to CPU 1, the other process of the stall rows to CPU 0' : ' · unpinned'}.`,
  '',
  `| measurement | ${sizes.map(thousands).join(' | ')} |`,
  `| --- | ${sizes.map(() => '---:').join(' | ')} |`,
  ...rows.map(([id, , text]) => `| ${text} | ${sizes.map((n) => show(cells.get(`${id} ${n}`))).join(' | ')} |`),
  ...(notes.length === 0 ? [] : ['', ...notes.map((text) => `- (${noteOf(text)}) ${text.replaceAll('|', '\\|')}`)])
].join('\n')
console.log(table)
if (values.write) await publish(`growth:${label}`, table)
