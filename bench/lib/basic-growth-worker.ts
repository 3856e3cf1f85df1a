// One column cell set of the Basic growth benchmark (basic-growth.ts): one
// kind at one size, in a process of its own (a clean heap for the memory
// figures; a hung store costs its own cells only). Basic requests go
// through `AuthCore.authenticate(header)`, the auth component's logic
// without Fastify, with `basic: { users: store }`; the stores through their
// public APIs only (D-BENCH-05).
//   fork (node --expose-gc --import tsx): basic-growth-worker.ts '<json WorkerConfig>'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setImmediate as turn } from 'node:timers/promises'
import { AuthCore, hashPassword, MemoryUserStore, parsePasswordHash, verifyPassword, type UserStore } from '@fastify-gatehouse/auth'
import { FileUserStore } from '@fastify-gatehouse/files'
import { PostgresUserStore } from '@fastify-gatehouse/postgres'
// Not exported: the verified-credential cache itself, measured alone beside AuthCore's use of it.
import { BoundedCache } from '../../packages/auth/src/bounded-cache.js'
import type { WorkerConfig, WorkerResult } from './basic-growth-kinds.js'
import { cpuMs, heapAfterGc, idleGap, median, microsPerCall, watchEventLoop } from './growth-measure.js'
import { CHEAP_SCRYPT, identityOf, PASSWORD, seedUserFile } from './growth-seed.js'
import { lockoutRows } from './lockout-growth.js'
import { check, Rows, spread } from './worker-rows.js'

// Distinct users the request loops go round, spread over the whole store.
const POOL = 1024
// CPU per timed loop and round; three rounds, interleaved, medians.
const CALL_CPU_MS = 250
const ROUNDS = 3
// Requests per batch, with a turn of the event loop between batches (the
// PostgreSQL store trusts its cache only while its listener's heartbeat is heard).
const BATCH = 128
// Misses timed one at a time for the wall figure.
const WALL_MISSES = 300
// The stall windows: requests in flight, and how long.
const HITS_IN_FLIGHT = 64
const MISSES_IN_FLIGHT = 8
const STALL_WINDOW_MS = 1000

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig
const { kind, n } = config
if (process.send === undefined) throw new Error('basic-growth-worker.ts is forked by basic-growth.ts')

const rows = new Rows<number>(`${kind} n=${n}`, config.dir)
const header = (identity: string, password = PASSWORD): string => `Basic ${Buffer.from(`${identity}:${password}`).toString('base64')}`

/** `call(k)` one after another in batches of {@link BATCH}, a turn of the event loop between; CPU µs per call over `cpuBudgetMs` (batches only). */
async function microsPerRequest (call: (k: number) => Promise<void>, cpuBudgetMs: number): Promise<number> {
  let k = 0
  let spent = 0
  let calls = 0
  while (spent < cpuBudgetMs) {
    const start = cpuMs()
    for (let i = 0; i < BATCH; i++) await call(k++)
    spent += cpuMs() - start
    calls += BATCH
    await turn()
  }
  return spent * 1000 / calls
}

/** Counts the store's `verify` calls (cache misses reach it, hits never do). */
function countVerifies (store: UserStore): { readonly count: number } {
  const counter = { count: 0 }
  const verify = store.verify.bind(store)
  store.verify = async (identity, password) => {
    counter.count++
    return await verify(identity, password)
  }
  return counter
}

/**
 * The rows of one store kind: Basic requests answered from the verified
 * credential cache (each re-checked with `standing`), requests that miss
 * it (`basicCache: { max: 0 }`: the store's `verify`, scrypt included),
 * the scrypt floor, the longest event-loop stall under load, and the heap.
 */
async function storeRows (p: string, store: UserStore, heapBefore: number): Promise<void> {
  const verifies = countVerifies(store)
  const cached = await AuthCore.create({ basic: { users: store }, basicCache: { max: 2 * POOL, ttl: 3600 } })
  const uncached = await AuthCore.create({ basic: { users: store }, basicCache: { max: 0 }, basicConcurrency: 10_000 })
  const pool = spread(n, POOL).map((i) => ({ identity: identityOf(i), header: header(identityOf(i)) }))
  const request = async (core: AuthCore, k: number): Promise<void> => {
    const user = pool[k % pool.length]!
    check((await core.authenticate(user.header)).identity === user.identity, `${user.identity} was not signed in`)
  }
  // Every pool user verified once: their credentials are cached from here on.
  for (let k = 0; k < pool.length; k++) await request(cached, k)
  check(verifies.count === pool.length, `${verifies.count} verifications to warm ${pool.length} users`)

  const hash = parsePasswordHash(await hashPassword(PASSWORD, CHEAP_SCRYPT))
  const hits: number[] = []
  const misses: number[] = []
  const floors: number[] = []
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const before = verifies.count
      hits.push(await microsPerRequest(async (k) => { await request(cached, k) }, CALL_CPU_MS))
      check(verifies.count === before, `${verifies.count - before} cache misses in the hit loop`)
      misses.push(await microsPerRequest(async (k) => { await request(uncached, k) }, CALL_CPU_MS))
      check(verifies.count > before, 'the miss loop never reached the store')
      floors.push(await microsPerRequest(async () => { check(await verifyPassword(PASSWORD, hash), 'the floor hash did not verify') }, CALL_CPU_MS / 2))
    }
    rows.cells[`${p}.hit`] = median(hits)
    rows.cells[`${p}.miss`] = median(misses)
    rows.cells[`${p}.floor`] = median(floors)
  } catch (err) {
    for (const id of ['hit', 'miss', 'floor']) rows.cells[`${p}.${id}`] ??= { failed: rows.messageOf(err) }
  }
  rows.log(`hit ${hits.map((x) => x.toFixed(1)).join(', ')} · miss ${misses.map((x) => x.toFixed(1)).join(', ')} · floor ${floors.map((x) => x.toFixed(1)).join(', ')} µs`)

  await rows.row(`${p}.missWall`, async () => {
    const walls: number[] = []
    for (let k = 0; k < WALL_MISSES; k++) {
      const start = performance.now()
      await request(uncached, k * 7)
      walls.push((performance.now() - start) * 1000)
    }
    return median(walls)
  })

  // Requests in flight as a server has them: each loop takes a turn of the
  // event loop between its requests (a request arrives by I/O), so the
  // gap measured is the longest piece of work that blocked everything else.
  await rows.row(`${p}.stall`, async () => {
    const stalls: number[] = []
    for (let w = 0; w < 3; w++) {
      const until = performance.now() + STALL_WINDOW_MS
      const watch = watchEventLoop()
      const loop = async (core: AuthCore, offset: number): Promise<void> => {
        for (let k = offset; performance.now() < until; k += 97) {
          await request(core, k)
          await turn()
        }
      }
      await Promise.all([
        ...Array.from({ length: HITS_IN_FLIGHT }, async (_v, i) => await loop(cached, i)),
        ...Array.from({ length: MISSES_IN_FLIGHT }, async (_v, i) => await loop(uncached, i * 13))
      ])
      stalls.push(watch.stop())
    }
    rows.log(`stalls ${stalls.map((x) => x.toFixed(1)).join(', ')} ms`)
    return median(stalls)
  })
  await rows.row(`${p}.heap`, async () => (await heapAfterGc() - heapBefore) / 2 ** 20)
}

async function memoryStore (): Promise<void> {
  const warm = new MemoryUserStore({ scrypt: CHEAP_SCRYPT })
  await warm.add('warm-up', { password: PASSWORD })
  const core = await AuthCore.create({ basic: { users: warm } })
  check((await core.authenticate(header('warm-up'))).identity === 'warm-up', 'the warm-up user was not signed in')

  const heap = await heapAfterGc()
  const store = new MemoryUserStore({ scrypt: CHEAP_SCRYPT })
  // 64 at a time: each add hashes its own password (on the thread pool).
  for (let i = 0; i < n; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, n - i) }, async (_v, j) => await store.add(identityOf(i + j), { password: PASSWORD, tags: ['staff'] })))
  }
  await storeRows('memory', store, heap)
  await rows.row('idle', async () => median([await idleGap(1000), await idleGap(1000), await idleGap(1000)]))
}

async function fileStore (): Promise<void> {
  const hash = await hashPassword(PASSWORD, CHEAP_SCRYPT)
  const path = join(config.dir, 'users.json')
  await seedUserFile(path, n, hash)
  const warmPath = join(config.dir, 'warm-users.json')
  await seedUserFile(warmPath, 1, hash)
  const warm = await FileUserStore.open(warmPath, { scrypt: CHEAP_SCRYPT })
  const core = await AuthCore.create({ basic: { users: warm } })
  check((await core.authenticate(header(identityOf(0)))).identity === identityOf(0), 'the warm-up user was not signed in')
  // One change through a throwaway store: the file is then in the store's own format (as growth.ts).
  const converter = await FileUserStore.open(path, { scrypt: CHEAP_SCRYPT })
  await converter.add('convert', { password: PASSWORD })
  await converter.delete('convert')
  await (converter as unknown as { close?: () => Promise<void> }).close?.()

  const heap = await heapAfterGc()
  const store = await FileUserStore.open(path, { scrypt: CHEAP_SCRYPT })
  await storeRows('file', store, heap)
  await (store as unknown as { close?: () => Promise<void> }).close?.()
}

async function postgresStore (): Promise<void> {
  const url = config.url
  if (url === undefined) throw new Error('no database URL')
  const warm = await PostgresUserStore.connect({ url, scrypt: CHEAP_SCRYPT, poolSize: 4 })
  const core = await AuthCore.create({ basic: { users: warm } })
  check((await core.authenticate(header(identityOf(0)))).identity === identityOf(0), 'the warm-up user was not signed in')
  await warm.close()

  const heap = await heapAfterGc()
  // The default cache (10 000 users with a row, 1 000 without) and pool.
  const store = await PostgresUserStore.connect({ url, scrypt: CHEAP_SCRYPT })
  try {
    await storeRows('postgres', store, heap)
  } finally {
    await store.close()
  }
}

/**
 * The verified-credential cache as it fills to n: through AuthCore (the
 * real entries: a credential's SHA-256, the Avatar, the stamp, its expiry)
 * the heap per cached credential and a request answered from a cache of n,
 * going round all n; then BoundedCache alone, get and set into a full
 * cache (each set replaces an entry: sampled eviction, D-AUTH-57).
 */
async function cache (): Promise<void> {
  const store = new MemoryUserStore({ scrypt: CHEAP_SCRYPT })
  for (let i = 0; i < n; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, n - i) }, async (_v, j) => await store.add(identityOf(i + j), { password: PASSWORD, tags: ['staff'] })))
  }
  const headers = Array.from({ length: n }, (_v, i) => header(identityOf(i)))
  const core = await AuthCore.create({ basic: { users: store }, basicCache: { max: n, ttl: 3600 } })
  check((await core.authenticate(headers[0]!)).identity === identityOf(0), 'user 0 was not signed in')
  const verifies = countVerifies(store)
  const heap = await heapAfterGc()
  // Fill: every user signs in once, 16 at a time (basicConcurrency).
  for (let i = 1; i < n; i += 16) {
    await Promise.all(Array.from({ length: Math.min(16, n - i) }, async (_v, j) => {
      check((await core.authenticate(headers[i + j]!)).identity === identityOf(i + j), `user ${i + j} was not signed in`)
    }))
  }
  await rows.row('cache.heap', async () => (await heapAfterGc() - heap) / Math.max(1, n - 1))
  const before = verifies.count
  // A stride prime to n goes round every entry, in an order unlike the fill's.
  const stride = n > 7919 && n % 7919 !== 0 ? 7919 : 1
  await rows.row('cache.hit', async () => {
    const rounds: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      rounds.push(await microsPerRequest(async (k) => {
        const i = (k * stride) % n
        check((await core.authenticate(headers[i]!)).identity === identityOf(i), `user ${i} was not signed in`)
      }, CALL_CPU_MS))
    }
    check(verifies.count === before, `${verifies.count - before} of the requests missed a cache of ${n}`)
    return median(rounds)
  })

  // BoundedCache alone, with entries shaped like AuthCore's.
  const keys = headers.map((_h, i) => `${identityOf(i)}:${'k'.repeat(32)}`)
  const bounded = new BoundedCache<{ identity: string }>(n)
  const far = Date.now() + 3_600_000
  for (let i = 0; i < n; i++) bounded.set(keys[i]!, { identity: identityOf(i) }, far)
  const now = Date.now()
  await rows.row('bounded.get', () => microsPerCall((k) => { check(bounded.get(keys[(k * stride) % n]!, now) !== undefined, 'a cached key is missing') }, CALL_CPU_MS))
  await rows.row('bounded.set', () => {
    // More distinct keys than the cache holds, in a cycle: every set is a new key, and evicts.
    const fresh = Array.from({ length: n + 1024 }, (_v, i) => `fresh-${i}:${'k'.repeat(32)}`)
    const value = { identity: 'x' }
    const us = microsPerCall((k) => { bounded.set(fresh[k % fresh.length]!, value, far) }, CALL_CPU_MS)
    check(bounded.size === n, `the cache holds ${bounded.size}, not its max ${n}`)
    return us
  })
}

const result: WorkerResult = await rows.collect(async () => {
  if (kind === 'memory') await memoryStore()
  else if (kind === 'file') await fileStore()
  else if (kind === 'postgres') await postgresStore()
  else if (kind === 'cache') await cache()
  else if (kind === 'lockout') await lockoutRows(rows, n)
  else throw new Error(`no kind ${String(kind)}`)
})
process.send(result, () => process.exit(0))
