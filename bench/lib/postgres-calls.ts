// The `calls` part of the PostgreSQL benchmark, for one table size: cached
// verification beside the file and memory stores, uncached lookups (one
// query each), logins with the default scrypt parameters, and changes.
// Everything goes through the stores' public APIs.
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { MemoryApiKeyStore, MemoryUserStore, parsePasswordHash, verifyPassword, type ApiKeyRecord, type ApiKeyStore, type UserStore } from '@fastify-gatehouse/auth'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { PostgresApiKeyStore, PostgresUserStore } from '@fastify-gatehouse/postgres'
import { median, type Budget } from './growth-measure.js'
import { CHEAP_SCRYPT, identityOf, keyOf, PASSWORD, seedKeyFile, seedUserFile } from './growth-seed.js'
import type { Cell, WorkerConfig } from './postgres-kinds.js'
import { costPerOp, latencies, microsPerCallTurning, quantile } from './postgres-measure.js'
import { check, spread, type Rows } from './worker-rows.js'

/** Records in the file and memory stores measured beside the table (in every column). */
export const LOCAL_RECORDS = 1000
// Distinct records the cached loops go round (the caches hold 10 000 by default).
const POOL = 1024
// CPU spent per timed call loop, per round.
const CALL_CPU_MS = 500
// Rounds over the stores (interleaved; medians): the shared machine's noise falls on all of them alike.
const ROUNDS = 3
// Logins per store per round (each ~0.1–0.2 s of scrypt).
const LOGINS = 4
// Changes: at least 20, at most 200, none started after 3 s.
const OPS: Budget = { minOps: 20, maxOps: 200, wallMs: 3000 }
// A sync call answering a promise is a cache miss; more than one in a thousand fails the row.
const MISS_TOLERANCE = 1 / 1000

const fixed = (x: number): string => x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toPrecision(2)
const stores: Array<{ close: () => Promise<void> }> = []
const closing = <S extends { close: () => Promise<void> }>(store: S): S => { stores.push(store); return store }

interface Local {
  fileKeys: FileApiKeyStore
  memoryKeys: MemoryApiKeyStore
  fileUsers: FileUserStore
  memoryUsers: MemoryUserStore
  /** A memory store holding only the users the login rows sign in (each add costs one default-parameter scrypt). */
  memoryLogin: MemoryUserStore
}

/** The file and memory stores with {@link LOCAL_RECORDS} records, seeded as the growth benchmark seeds them. */
async function localStores (config: WorkerConfig, loginIds: readonly string[]): Promise<Local> {
  const keyPath = join(config.dir, `keys-${config.n}.json`)
  await seedKeyFile(keyPath, LOCAL_RECORDS)
  // One change through a throwaway store first: the file is then in the store's own (journal) format.
  const converter = await FileApiKeyStore.open(keyPath)
  await converter.delete((await converter.issue({ label: 'convert' })).record.keyId)
  await converter.close()
  const fileKeys = closing(await FileApiKeyStore.open(keyPath, { lastUsedFlushInterval: 3_600_000 }))

  const userPath = join(config.dir, `users-${config.n}.json`)
  await seedUserFile(userPath, LOCAL_RECORDS, config.passwordHash)
  const userConverter = await FileUserStore.open(userPath, { scrypt: CHEAP_SCRYPT })
  await userConverter.add('convert', { password: PASSWORD })
  await userConverter.delete('convert')
  // New users get cheap hashes (the change rows time the store, not scrypt); seeded ones keep the default-parameter hash.
  // (A FileUserStore holds no timer or handle: it has nothing to close.)
  const fileUsers = await FileUserStore.open(userPath, { scrypt: CHEAP_SCRYPT })

  const memoryKeys = new MemoryApiKeyStore()
  for (let i = 0; i < LOCAL_RECORDS; i++) await memoryKeys.add(keyOf(i), { label: `service ${i}`, tags: ['api'] })
  const memoryUsers = new MemoryUserStore({ scrypt: CHEAP_SCRYPT })
  for (let i = 0; i < LOCAL_RECORDS; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, LOCAL_RECORDS - i) }, (_, j) => memoryUsers.add(identityOf(i + j), { password: PASSWORD, tags: ['staff'] })))
  }
  const memoryLogin = new MemoryUserStore()
  for (const identity of loginIds) await memoryLogin.add(identity, { password: PASSWORD, tags: ['staff'] })
  return { fileKeys, memoryKeys, fileUsers, memoryUsers, memoryLogin }
}

/**
 * Per-call CPU µs of each store over {@link ROUNDS} interleaved rounds:
 * the medians, and the PostgreSQL store's difference from the file
 * store's, round by round (median). `prepare` runs before each round's
 * loop, untimed (it fills a PostgreSQL cache).
 */
async function cachedRows (rows: Rows, ids: { file: string, memory: string, pg: string, delta: string }, loops: Record<'file' | 'memory' | 'pg', { call: (k: number) => unknown, prepare?: () => Promise<void> }>, misses: () => number): Promise<void> {
  await rows.rows(Object.values(ids), async () => {
    const seen: Record<'file' | 'memory' | 'pg', number[]> = { file: [], memory: [], pg: [] }
    let calls = 0
    for (let round = 0; round < ROUNDS; round++) {
      // The order reverses every round (as run.ts does), so no store always runs first.
      const order = (['file', 'memory', 'pg'] as const).slice()
      if (round % 2 === 1) order.reverse()
      for (const which of order) {
        await loops[which].prepare?.()
        const { micros, calls: made } = await microsPerCallTurning(loops[which].call, CALL_CPU_MS)
        seen[which].push(micros)
        if (which === 'pg') calls += made
      }
    }
    if (misses() > calls * MISS_TOLERANCE) throw new Error(`${misses()} of ${calls} PostgreSQL lookups were not answered from the cache`)
    rows.log(`${ids.pg}: ${misses()} cache misses in ${calls} calls; rounds file ${seen.file.map(fixed).join(', ')}, pg ${seen.pg.map(fixed).join(', ')}`)
    return {
      [ids.file]: median(seen.file),
      [ids.memory]: median(seen.memory),
      [ids.pg]: median(seen.pg),
      [ids.delta]: median(seen.pg.map((x, r) => x - seen.file[r]!))
    }
  })
}

const latencyCell = (wallMs: readonly number[]): string => `${fixed(quantile(wallMs, 0.5))} / ${fixed(quantile(wallMs, 0.99))} / ${fixed(wallMs[wallMs.length - 1]!)}`

/**
 * Key issue and revoke: CPU ms (mean) / wall ms (median) per operation;
 * each key checked afterwards, untimed. D-BENCH-07.
 */
async function keyChanges (rows: Rows, prefix: string, store: ApiKeyStore): Promise<void> {
  const issued: Array<{ key: string, keyId: string }> = []
  const cell = (c: { cpuMs: number, wallMs: number }): Cell => `${fixed(c.cpuMs)} / ${fixed(c.wallMs)}`
  await rows.row(`${prefix}Issue`, async () => {
    const cost = await costPerOp(async () => {
      const { key, record } = await store.issue({ label: 'bench issued', tags: ['api'] })
      issued.push({ key, keyId: record.keyId })
    }, OPS)
    for (const { key } of issued) check(await store.verify(key) !== null, 'an issued key did not verify')
    return cell(cost)
  })
  await rows.row(`${prefix}Revoke`, async () => {
    if (issued.length === 0) throw new Error('no key was issued to revoke')
    const cost = await costPerOp(async (k) => { check(await store.revoke(issued[k]!.keyId), 'revoke found no key') }, { ...OPS, maxOps: issued.length })
    for (const { key } of issued.slice(0, cost.ops)) check(await store.verify(key) === null, 'a revoked key still verified')
    return cell(cost)
  })
}

/** User add (cheap scrypt) and disable, as {@link keyChanges}. */
async function userChanges (rows: Rows, prefix: string, store: UserStore, n: number): Promise<void> {
  const added: string[] = []
  const cell = (c: { cpuMs: number, wallMs: number }): Cell => `${fixed(c.cpuMs)} / ${fixed(c.wallMs)}`
  await rows.row(`${prefix}Add`, async () => {
    const cost = await costPerOp(async (k) => {
      const identity = `added-${n}-${k}`
      await store.add(identity, { password: PASSWORD, tags: ['staff'] })
      added.push(identity)
    }, OPS)
    for (const identity of added) check(await store.standing(identity) !== null, 'an added user has no standing')
    return cell(cost)
  })
  await rows.row(`${prefix}Disable`, async () => {
    if (added.length === 0) throw new Error('no user was added to disable')
    const cost = await costPerOp(async (k) => { check(await store.setEnabled(added[k]!, false), 'setEnabled found no user') }, { ...OPS, maxOps: added.length })
    for (const identity of added.slice(0, cost.ops)) check(await store.standing(identity) === null, 'a disabled user still has a standing')
    return cell(cost)
  })
}

export async function calls (config: WorkerConfig, rows: Rows): Promise<void> {
  const { n, url } = config
  const localLogins = spread(LOCAL_RECORDS, LOGINS).map(identityOf)
  const tableLogins = spread(n, LOGINS).map(identityOf)
  try {
    const local = await localStores(config, localLogins)
    // The stores as a deployment has them (default cache), and a second pair
    // without a cache: each of its lookups is the one query of a miss.
    const pgKeys = closing(await PostgresApiKeyStore.connect({ url, lastUsedFlushInterval: 3_600_000 }))
    const pgUsers = closing(await PostgresUserStore.connect({ url, scrypt: CHEAP_SCRYPT }))
    const coldKeys = closing(await PostgresApiKeyStore.connect({ url, cacheSize: 0, negativeCacheSize: 0, lastUsedFlushInterval: 3_600_000 }))
    const coldUsers = closing(await PostgresUserStore.connect({ url, cacheSize: 0, negativeCacheSize: 0, scrypt: CHEAP_SCRYPT }))

    // Per request, cache warm.
    const localKeys = spread(LOCAL_RECORDS, POOL).map(keyOf)
    const tableKeys = spread(n, POOL).map(keyOf)
    let keyMisses = 0
    const pgVerify = (k: number): unknown => {
      const answer = pgKeys.verify(tableKeys[k % tableKeys.length]!)
      if (!(answer instanceof Promise)) return check(answer !== null, 'a seeded key did not verify')
      keyMisses++
      return answer.then((record: ApiKeyRecord | null) => { check(record !== null, 'a seeded key did not verify') })
    }
    await cachedRows(rows, { file: 'verify.file', memory: 'verify.memory', pg: 'verify.pg', delta: 'verify.delta' }, {
      file: { call: (k) => { check(local.fileKeys.verify(localKeys[k % localKeys.length]!) !== null, 'a seeded key did not verify') } },
      memory: { call: (k) => { check(local.memoryKeys.verify(localKeys[k % localKeys.length]!) !== null, 'a seeded key did not verify') } },
      pg: { call: pgVerify, prepare: async () => { for (const key of tableKeys) check(await pgKeys.verify(key) !== null, 'a seeded key did not verify') } }
    }, () => keyMisses)

    const localIds = spread(LOCAL_RECORDS, POOL).map(identityOf)
    const tableIds = spread(n, POOL).map(identityOf)
    const standing = (store: UserStore, ids: readonly string[]) => async (k: number): Promise<void> => { check(await store.standing(ids[k % ids.length]!) !== null, 'a seeded user has no standing') }
    await cachedRows(rows, { file: 'standing.file', memory: 'standing.memory', pg: 'standing.pg', delta: 'standing.delta' }, {
      file: { call: standing(local.fileUsers, localIds) },
      memory: { call: standing(local.memoryUsers, localIds) },
      pg: { call: standing(pgUsers, tableIds), prepare: async () => { for (const id of tableIds) await pgUsers.standing(id) } }
    }, () => 0)

    // Uncached: one query each, one at a time, keys taken across the whole table.
    const order = (k: number): number => (k * 7919) % n
    const total = config.misses + Math.ceil(config.misses / 10)
    const missKeys = Array.from({ length: total }, (_, k) => keyOf(order(k)))
    const missIds = Array.from({ length: total }, (_, k) => identityOf(order(k)))
    await rows.rows(['miss.verify', 'miss.verifyCpu'], async () => {
      const { wallMs, cpuMicros } = await latencies(async (k) => { check(await coldKeys.verify(missKeys[k]!) !== null, 'a seeded key did not verify') }, config.misses, total - config.misses)
      return { 'miss.verify': latencyCell(wallMs), 'miss.verifyCpu': cpuMicros }
    })
    await rows.rows(['miss.standing', 'miss.standingCpu'], async () => {
      const { wallMs, cpuMicros } = await latencies(async (k) => { check(await coldUsers.standing(missIds[k]!) !== null, 'a seeded user has no standing') }, config.misses, total - config.misses)
      return { 'miss.standing': latencyCell(wallMs), 'miss.standingCpu': cpuMicros }
    })

    // Logins with the default scrypt parameters: wall ms each, one at a time; the floor is scrypt alone.
    await rows.rows(['login.floor', 'login.file', 'login.memory', 'login.pg'], async () => {
      const parsed = parsePasswordHash(config.passwordHash)
      const login = (store: UserStore, ids: readonly string[]) => async (k: number) => await store.verify(ids[k % ids.length]!, PASSWORD) !== null
      const kinds: Array<[string, (k: number) => Promise<boolean>]> = [
        ['login.floor', async () => await verifyPassword(PASSWORD, parsed)],
        ['login.file', login(local.fileUsers, localLogins)],
        ['login.memory', login(local.memoryLogin, localLogins)],
        ['login.pg', login(pgUsers, tableLogins)]
      ]
      const wall: Record<string, number[]> = Object.fromEntries(kinds.map(([id]) => [id, []]))
      for (let round = 0; round < ROUNDS; round++) {
        for (const [id, run] of round % 2 === 1 ? [...kinds].reverse() : kinds) {
          for (let k = 0; k < LOGINS; k++) {
            const start = performance.now()
            check(await run(k), `${id}: the password did not verify`)
            wall[id]!.push(performance.now() - start)
          }
        }
      }
      return Object.fromEntries(Object.entries(wall).map(([id, xs]) => [id, median(xs)]))
    })

    // Changes.
    await keyChanges(rows, 'change.pgKey', pgKeys)
    await userChanges(rows, 'change.pgUser', pgUsers, n)
    await keyChanges(rows, 'change.fileKey', local.fileKeys)
    await keyChanges(rows, 'change.memoryKey', local.memoryKeys)
    await userChanges(rows, 'change.fileUser', local.fileUsers, n)
    await userChanges(rows, 'change.memoryUser', local.memoryUsers, n)
  } finally {
    for (const store of stores.splice(0)) await store.close().catch(() => {})
  }
}
