// What the session-list benchmark measures of one store at one size:
// CPU per listFor for the memory store; for Redis and PostgreSQL, calls one
// at a time (wall time, this process's CPU), and the server's side of them:
// Redis's INFO commandstats over those calls (commands per listFor, the
// script's own time), PostgreSQL's EXPLAIN (ANALYZE, BUFFERS) of the
// statement listFor runs (the plan, its pages and time), and of the same
// statement with index scans off, for scale: what O(all sessions) costs.
import type { Redis } from 'ioredis'
import type { SessionStore } from '@fastify-gatehouse/session'
import { sqlNames } from '../../packages/postgres/src/names.js'
import { sessionStatements } from '../../packages/postgres/src/session-statements.js'
import { median, microsPerCall } from './growth-measure.js'
import { sql } from './postgres-database.js'
import { latencies, quantile } from './postgres-measure.js'
import { check } from './worker-rows.js'
import { LISTED, LISTED_SESSIONS } from './session-list-seed.js'
import type { ListCell } from './session-list-kinds.js'

/** The limit every listFor is called with, as the account page asks. */
export const LIMIT = 100

const fixed = (x: number): string => x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toPrecision(2)

function checkListed (entries: ReadonlyArray<{ record: { identity: string | null } }>): void {
  check(entries.length === LISTED_SESSIONS && entries.every((e) => e.record.identity === LISTED), `listFor answered ${entries.length} sessions, not the listed user's ${LISTED_SESSIONS}`)
}

/** MemorySessionStore: CPU µs per listFor (synchronous), 0.5 s of CPU after a tenth of that. */
export function memoryCells (store: SessionStore): Record<string, ListCell> {
  checkListed(store.listFor(LISTED, LIMIT) as Array<{ record: { identity: string | null } }>)
  return { 'memory.cpu': microsPerCall(() => { store.listFor(LISTED, LIMIT) }, 500, 100) }
}

/** Rounds of timed calls at each size; CPU and server figures are their medians. */
export const ROUNDS = 3

/**
 * `calls` listFor one at a time, untimed, then {@link ROUNDS} rounds of
 * `calls` timed: wall p50 / p99 (µs) over all of them, this process's CPU
 * µs per call (median of the rounds), and what `between` measures around
 * each round (median).
 */
async function timedCalls (store: SessionStore, calls: number, prefix: string, between?: (round: () => Promise<void>) => Promise<number>): Promise<Record<string, ListCell>> {
  checkListed(await store.listFor(LISTED, LIMIT))
  await latencies(async () => { await store.listFor(LISTED, LIMIT) }, 0, calls)
  const wall: number[] = []
  const cpu: number[] = []
  const server: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const round = async (): Promise<void> => {
      const measured = await latencies(async () => { await store.listFor(LISTED, LIMIT) }, calls, 0)
      wall.push(...measured.wallMs)
      cpu.push(measured.cpuMicros)
    }
    if (between === undefined) await round()
    else server.push(await between(round))
  }
  wall.sort((a, b) => a - b)
  return {
    [`${prefix}.wall`]: `${fixed(quantile(wall, 0.5) * 1000)} / ${fixed(quantile(wall, 0.99) * 1000)}`,
    [`${prefix}.cpu`]: median(cpu),
    ...(server.length === 0 ? {} : { [`${prefix}.server`]: median(server) })
  }
}

/** Calls and µs per command, from INFO commandstats (commands run by scripts included). */
async function commandStats (client: Redis): Promise<Map<string, { calls: number, usec: number }>> {
  const stats = new Map<string, { calls: number, usec: number }>()
  for (const line of (await client.info('commandstats')).split('\r\n')) {
    const match = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line)
    if (match !== null) stats.set(match[1]!, { calls: Number(match[2]), usec: Number(match[3]) })
  }
  return stats
}

/**
 * RedisSessionStore: the timed calls, and the server's commandstats around
 * each round: commands per listFor (a delta, so the counts hold on a
 * shared server only while nothing else runs there), and the script's µs
 * per call in Redis (median of the rounds).
 */
export async function redisCells (store: SessionStore, client: Redis, calls: number): Promise<Record<string, ListCell>> {
  let commands = ''
  const cells = await timedCalls(store, calls, 'redis', async (round) => {
    const before = await commandStats(client)
    await round()
    const after = await commandStats(client)
    const per: string[] = []
    for (const [name, { calls: n }] of after) {
      const delta = n - (before.get(name)?.calls ?? 0)
      if (name !== 'info' && delta > 0) per.push(`${name} ${Number((delta / calls).toFixed(2))}`)
    }
    commands = per.sort().join(' · ')
    const script = after.get('evalsha') ?? { calls: 0, usec: 0 }
    const scriptBefore = before.get('evalsha') ?? { calls: 0, usec: 0 }
    check(script.calls - scriptBefore.calls === calls, 'one EVALSHA per listFor')
    return (script.usec - scriptBefore.usec) / calls
  })
  cells['redis.commands'] = commands
  return cells
}

interface PlanNode { 'Node Type': string, 'Index Name'?: string, 'Relation Name'?: string, 'Shared Hit Blocks'?: number, 'Shared Read Blocks'?: number, Plans?: PlanNode[] }

/** The nodes of a plan, outermost first, as `Limit ← Sort ← Index Scan (sessions_identity)`. */
function planShape (node: PlanNode): string {
  const name = `${node['Node Type']}${node['Index Name'] === undefined ? '' : ` (${node['Index Name']})`}${node['Node Type'] === 'Seq Scan' ? ` (${node['Relation Name'] ?? '?'})` : ''}`
  const inner = (node.Plans ?? []).map(planShape)
  return inner.length === 0 ? name : `${name} ← ${inner.join(' + ')}`
}

/** EXPLAIN (ANALYZE, BUFFERS) of listFor's statement, 5 times: median execution ms, pages of the last, its shape and text. */
async function explain (url: string, settings: string[]): Promise<{ ms: number, pages: number, shape: string, text: string }> {
  const statement = sessionStatements(sqlNames('gatehouse', '')).listFor.text
  const values = [LISTED, Date.now(), LIMIT]
  const runs: Array<{ ms: number, pages: number, shape: string }> = []
  for (let i = 0; i < 5; i++) {
    const [row] = await sql<{ 'QUERY PLAN': Array<{ Plan: PlanNode, 'Execution Time': number }> }>(url, ...settings, [`explain (analyze, buffers, format json) ${statement}`, values])
    const { Plan: plan, 'Execution Time': ms } = row!['QUERY PLAN'][0]!
    runs.push({ ms, pages: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0), shape: planShape(plan) })
  }
  const rows = await sql<{ 'QUERY PLAN': string }>(url, ...settings, [`explain (analyze, buffers, costs off, timing off, summary off) ${statement}`, values])
  return { ms: median(runs.map((r) => r.ms)), pages: runs.at(-1)!.pages, shape: runs.at(-1)!.shape, text: rows.map((r) => r['QUERY PLAN']).join('\n') }
}

/** PostgresSessionStore: the timed calls; the plan of listFor's statement; the same without index scans, for scale. */
export async function pgCells (store: SessionStore, url: string, calls: number): Promise<{ cells: Record<string, ListCell>, plan: string }> {
  const cells = await timedCalls(store, calls, 'pg')
  const used = await explain(url, [])
  cells['pg.plan'] = used.shape
  cells['pg.pages'] = used.pages
  cells['pg.ms'] = used.ms
  const scanned = await explain(url, ['set enable_indexscan = off', 'set enable_bitmapscan = off', 'set enable_indexonlyscan = off'])
  cells['pg.scanPages'] = scanned.pages
  cells['pg.scanMs'] = scanned.ms
  return { cells, plan: used.text }
}
