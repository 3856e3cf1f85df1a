// The `sessions` part of the PostgreSQL benchmark: one get and one set at
// a time on MemorySessionStore, RedisSessionStore and PostgresSessionStore,
// wall µs per call (a network round trip for the two servers) and this
// process's CPU µs per call.
import { sha256 } from '@fastify-gatehouse/core'
import { PostgresSessionStore } from '@fastify-gatehouse/postgres'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import { MemorySessionStore, type SessionRecord, type SessionStore } from '@fastify-gatehouse/session'
import { identityOf } from './growth-seed.js'
import type { Cell, WorkerConfig } from './postgres-kinds.js'
import { latencies, quantile } from './postgres-measure.js'
import { check, type Rows } from './worker-rows.js'

/** The stores, as the row ids name them. */
export const SESSION_STORES = ['memory', 'redis', 'pg'] as const
/** The operations timed, as the row ids name them. */
export const SESSION_OPS = ['get', 'setNew', 'setUpdate'] as const
// Sessions per store per round, each written, read and rewritten once.
export const SESSIONS = 1000
// Timed rounds, after an untimed one of WARM sessions; stores interleaved.
export const SESSION_ROUNDS = 3
export const SESSION_WARM = 200

const fixed = (x: number): string => x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toPrecision(2)

/** A signed-in session, as the session component writes it. */
function record (i: number, version: number): SessionRecord {
  const now = Date.now()
  return { identity: identityOf(i), tags: ['staff'], data: { i }, createdAt: now, expiresAt: now + 8 * 3600_000, version, via: 'password', stamp: sha256(`stamp ${i}`).slice(0, 22) }
}

/** One round on one store: `count` sessions created (set, no condition), read (get) and rewritten at their version (set); then destroyed, untimed. */
async function round (store: SessionStore, tag: string, count: number): Promise<Record<typeof SESSION_OPS[number], { wallMs: readonly number[], cpuMicros: number }>> {
  // Keys and records made before the clock starts: only the store's call is timed.
  const keys = Array.from({ length: count }, (_, i) => sha256(`session ${tag} ${i}`))
  const created = keys.map((_, i) => record(i, 1))
  const updated = keys.map((_, i) => record(i, 2))
  const setNew = await latencies(async (k) => { check(await store.set(keys[k]!, created[k]!, null) === 'written', 'a new session was not written') }, count, 0)
  const get = await latencies(async (k) => { check((await store.get(keys[k]!))?.version === 1, 'a session written is not read back') }, count, 0)
  const setUpdate = await latencies(async (k) => { check(await store.set(keys[k]!, updated[k]!, { key: keys[k]!, version: 1 }) === 'written', 'a session update was not written') }, count, 0)
  for (const key of keys) await store.destroy(key)
  return { get, setNew, setUpdate }
}

export async function sessions (config: WorkerConfig, rows: Rows): Promise<void> {
  const ids = SESSION_STORES.flatMap((s) => SESSION_OPS.flatMap((op) => [`session.${s}.${op}`, `session.${s}.${op}.cpu`]))
  const opened: Array<{ close?: () => Promise<void> }> = []
  await rows.rows(ids, async () => {
    const stores: Record<typeof SESSION_STORES[number], SessionStore> = {
      memory: new MemorySessionStore({ max: 10 * SESSIONS }),
      redis: await RedisSessionStore.connect({ url: config.redisUrl, prefix: config.redisPrefix }),
      pg: await PostgresSessionStore.connect({ url: config.url })
    }
    opened.push(stores.redis as RedisSessionStore, stores.pg as PostgresSessionStore)
    const wall: Record<string, number[]> = {}
    const cpu: Record<string, number[]> = {}
    for (const s of SESSION_STORES) await round(stores[s], `warm ${s}`, SESSION_WARM)
    for (let r = 0; r < SESSION_ROUNDS; r++) {
      for (const s of r % 2 === 1 ? [...SESSION_STORES].reverse() : SESSION_STORES) {
        const measured = await round(stores[s], `${r} ${s}`, SESSIONS)
        for (const op of SESSION_OPS) {
          (wall[`${s}.${op}`] ??= []).push(...measured[op].wallMs);
          (cpu[`${s}.${op}`] ??= []).push(measured[op].cpuMicros)
        }
      }
    }
    const cells: Record<string, Cell> = {}
    for (const [id, xs] of Object.entries(wall)) {
      const sorted = xs.sort((a, b) => a - b)
      cells[`session.${id}`] = `${fixed(quantile(sorted, 0.5) * 1000)} / ${fixed(quantile(sorted, 0.99) * 1000)}`
      cells[`session.${id}.cpu`] = cpu[id]!.reduce((a, b) => a + b, 0) / cpu[id]!.length
    }
    return cells
  })
  for (const store of opened) await store.close?.().catch(() => {})
}
