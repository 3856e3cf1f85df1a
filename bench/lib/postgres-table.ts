// The tables of the PostgreSQL benchmark (postgres.ts): which rows there
// are, which part measures each, and how cells and notes are written.
import type { Part } from './postgres-kinds.js'
import { LOCAL_RECORDS } from './postgres-calls.js'
import { SESSION_OPS, SESSION_STORES } from './postgres-sessions.js'
import { showCell, sizeTable, thousands, type Notes, type Shown } from './table-cells.js'
const local = thousands(LOCAL_RECORDS)

/** The rows by table size: a group heading, or [row id, the part that measures it ('seed': the runner), label]. */
export type MainRow = string | [string, Part | 'seed', string]

/** The rows of the table by size; `touches` is how many distinct names the memory parts look up. */
export const mainRows = (touches: number): MainRow[] => [
  'The database',
  ['seed', 'seed', 'seeding api_keys and users to this size: one `insert … select` each, then VACUUM ANALYZE, s'],
  ['tables', 'seed', 'api_keys + users with their indexes, MiB'],
  'API-key verification, cache warm: CPU µs per call (medians of 3 interleaved rounds of 0.5 s of CPU)',
  ['verify.file', 'calls', `FileApiKeyStore (${local} keys): verify`],
  ['verify.memory', 'calls', `MemoryApiKeyStore (${local} keys): verify`],
  ['verify.pg', 'calls', 'PostgresApiKeyStore: verify, answered from its cache (synchronously)'],
  ['verify.delta', 'calls', 'PostgresApiKeyStore − FileApiKeyStore (target: at most +3)'],
  'A password session\'s per-request check, cache warm: `standing(identity)`, CPU µs per call (as above)',
  ['standing.file', 'calls', `FileUserStore (${local} users): standing`],
  ['standing.memory', 'calls', `MemoryUserStore (${local} users): standing`],
  ['standing.pg', 'calls', 'PostgresUserStore: standing, answered from its cache'],
  ['standing.delta', 'calls', 'PostgresUserStore − FileUserStore (target: at most +3)'],
  'Not cached: one query by primary key on loopback, calls one at a time (a store with `cacheSize: 0`)',
  ['miss.verify', 'calls', 'PostgresApiKeyStore: verify, wall ms p50 / p99 / max'],
  ['miss.verifyCpu', 'calls', 'PostgresApiKeyStore: verify, CPU µs per call of this process'],
  ['miss.standing', 'calls', 'PostgresUserStore: standing, wall ms p50 / p99 / max'],
  ['miss.standingCpu', 'calls', 'PostgresUserStore: standing, CPU µs per call of this process'],
  'Login, `verify(identity, password)` with the default scrypt parameters (N=2^15, r=8, p=1): wall ms, median of 12, one at a time',
  ['login.floor', 'calls', 'scrypt floor: `verifyPassword` of the same hash alone'],
  ['login.file', 'calls', `FileUserStore (${local} users)`],
  ['login.memory', 'calls', 'MemoryUserStore'],
  ['login.pg', 'calls', 'PostgresUserStore (reads the row, then scrypt)'],
  'Changes: CPU ms per operation (mean) / wall ms per operation (median), 20–200 in a row, each checked afterwards by a lookup, untimed',
  ['change.pgKeyIssue', 'calls', 'PostgresApiKeyStore: issue'],
  ['change.pgKeyRevoke', 'calls', 'PostgresApiKeyStore: revoke'],
  ['change.pgUserAdd', 'calls', 'PostgresUserStore: add (new users hashed with N=16: the store\'s cost, not scrypt\'s)'],
  ['change.pgUserDisable', 'calls', 'PostgresUserStore: setEnabled(false)'],
  ['change.fileKeyIssue', 'calls', `FileApiKeyStore (${local} keys): issue`],
  ['change.fileKeyRevoke', 'calls', `FileApiKeyStore (${local} keys): revoke`],
  ['change.memoryKeyIssue', 'calls', `MemoryApiKeyStore (${local} keys): issue`],
  ['change.memoryKeyRevoke', 'calls', `MemoryApiKeyStore (${local} keys): revoke`],
  ['change.fileUserAdd', 'calls', `FileUserStore (${local} users): add (N=16)`],
  ['change.fileUserDisable', 'calls', `FileUserStore (${local} users): setEnabled(false)`],
  ['change.memoryUserAdd', 'calls', `MemoryUserStore (${local} users): add (N=16)`],
  ['change.memoryUserDisable', 'calls', `MemoryUserStore (${local} users): setEnabled(false)`],
  `Memory of one process after ${thousands(touches)} distinct lookups, default cache (each part in a fresh process; heap after full GCs, minus the same before)`,
  ['heap.keys', 'memory-keys', `PostgresApiKeyStore: heap growth after verifying ${thousands(touches)} distinct keys (last-use times not yet written)`],
  ['heap.keysCached', 'memory-keys', 'PostgresApiKeyStore: entries then cached, keys + unknown ids'],
  ['heap.keysFlush', 'memory-keys', 'PostgresApiKeyStore: writing those last-use times (`flushLastUsed`, one statement), s'],
  ['heap.keysFlushed', 'memory-keys', 'PostgresApiKeyStore: heap growth after that write'],
  ['heap.users', 'memory-users', `PostgresUserStore: heap growth after \`standing\` of ${thousands(touches)} distinct identities`],
  ['heap.usersCached', 'memory-users', 'PostgresUserStore: entries then cached, users + unknown identities']
]

export const SESSION_LABELS: Record<typeof SESSION_STORES[number], string> = {
  memory: 'MemorySessionStore',
  redis: 'RedisSessionStore (Redis on 127.0.0.1)',
  pg: 'PostgresSessionStore (PostgreSQL on 127.0.0.1)'
}

const OP_LABELS: Record<typeof SESSION_OPS[number], string> = {
  get: 'get',
  setNew: 'set, new session',
  setUpdate: 'set, update at its version'
}

const figure = (x: number): string => {
  const a = Math.abs(x)
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toPrecision(2)
}

/** A cell; `signed`: a positive figure with its `+` (the difference rows). */
const show = (cell: Shown | undefined, notes: Notes, signed = false): string => showCell(cell, notes, (x) => (signed && x > 0 ? '+' : '') + figure(x))

/** The table by size: one column per table size. */
export function mainTable (rows: readonly MainRow[], sizes: readonly number[], cells: ReadonlyMap<string, Shown>, notes: Notes): string[] {
  return sizeTable(sizes.map((n) => `${thousands(n)} rows`), rows.map((row) => typeof row === 'string'
    ? `**${row}**`
    : [row[2], sizes.map((n) => show(cells.get(`${row[0]} ${n}`), notes, row[0].endsWith('.delta')))]))
}

/** The sessions table: one row per store, wall µs (p50 / p99) and CPU µs per call of each operation. */
export function sessionTable (cells: ReadonlyMap<string, Shown>, notes: Notes): string[] {
  return [
    `| store | ${SESSION_OPS.map((op) => `${OP_LABELS[op]}: wall µs p50 / p99`).join(' | ')} | ${SESSION_OPS.map((op) => `${OP_LABELS[op]}: CPU µs`).join(' | ')} |`,
    `| --- | ${SESSION_OPS.map(() => '---:').join(' | ')} | ${SESSION_OPS.map(() => '---:').join(' | ')} |`,
    ...SESSION_STORES.map((s) => `| ${SESSION_LABELS[s]} | ${SESSION_OPS.map((op) => show(cells.get(`session.${s}.${op}`), notes)).join(' | ')} | ${SESSION_OPS.map((op) => show(cells.get(`session.${s}.${op}.cpu`), notes)).join(' | ')} |`)
  ]
}
