// One cell column of the growth benchmark (growth.ts): one store kind at
// one size, in a process of its own (a clean heap for the memory figures,
// and a hung or failing store cannot take the run down). Works through the
// stores' public APIs only, so the same file measures every version of them
// (D-BENCH-05).
//   fork (node --expose-gc --import tsx): growth-worker.ts <kind> <n> <dir> <seedCapMs> <pin 0|1>
import { fork, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { hashPassword, MemoryApiKeyStore, MemoryUserStore, parsePasswordHash, sha256, verifyPassword } from '@fastify-gatehouse/auth'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { MemorySessionStore } from '@fastify-gatehouse/session'
import { cpuMs, cpuPerOp, heapAfterGc, idleGap, median, microsPerAsyncCall, microsPerCall, watchEventLoop, type Budget } from './growth-measure.js'
import { CHEAP_SCRYPT, identityOf, keyIdOf, keyOf, PASSWORD, seedKeyFile, seedUserFile } from './growth-seed.js'
import { pinToCpu } from './pin.js'
import type { Kind, WorkerResult } from './growth-kinds.js'
import { check, Rows, spread } from './worker-rows.js'

// Changes: at least 3, at most 20, none started after 4 s.
const OPS: Budget = { minOps: 3, maxOps: 20, wallMs: 4000 }
// CPU spent per timed call loop.
const CALL_CPU_MS = 500
// Waiting for another process's change to be seen.
const SEEN_CEILING_MS = 30_000
// Distinct records the call loops go round, spread over the whole store.
const POOL = 1024
const OPEN_KEYS = { lastUsedFlushInterval: 3_600_000 }

const CHANGE = fileURLToPath(new URL('./growth-change.ts', import.meta.url))

const [kind, size, dir, seedCap, pinArg] = process.argv.slice(2) as [Kind, string, string, string, string]
const n = Number(size)
const pin = pinArg === '1'
if (process.send === undefined) throw new Error('growth-worker.ts is forked by growth.ts')

const rows = new Rows<number>(`${kind} n=${n}`, dir)

/** The next IPC message of `child`; rejects when it exits first or says it failed. */
function nextMessage (child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown): void => { child.off('exit', onExit); String(m).startsWith('failed') ? reject(new Error(String(m))) : resolve(String(m)) }
    const onExit = (code: number | null): void => { child.off('message', onMessage); reject(new Error(`the changing process exited (${code})`)) }
    child.once('message', onMessage)
    child.once('exit', onExit)
  })
}

/**
 * The longest event-loop stall of this process while it picks up ONE
 * change that another process makes through the public API, and how long
 * after the change was asked for it was seen. `seen()` is asked on every
 * 1 ms tick (one at a time) until it answers true; the loop is watched
 * until 200 ms after that, for work that follows the pickup.
 */
async function reloadStall (kindArg: 'keys' | 'users', path: string, target: string, seen: () => boolean | Promise<boolean>): Promise<{ stallMs: number, seenMs: number }> {
  const child = fork(CHANGE, [kindArg, path, target], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  try {
    if (pin) pinToCpu(child.pid!, 0)
    await nextMessage(child) // ready: started, store opened; only the change is left
    const done = nextMessage(child)
    let asking = false
    let seenAt: number | undefined
    let markSeen = (): void => {}
    const seenNow = new Promise<void>((resolve) => { markSeen = resolve })
    const start = performance.now()
    const watch = watchEventLoop(() => {
      if (asking || seenAt !== undefined) return
      asking = true
      Promise.resolve(seen()).then((yes) => {
        asking = false
        if (yes) { seenAt = performance.now(); markSeen() }
      }, () => { asking = false })
    })
    child.send('go')
    await done
    await Promise.race([seenNow, sleep(SEEN_CEILING_MS, undefined, { ref: false })])
    if (seenAt !== undefined) await sleep(200)
    const stallMs = watch.stop()
    if (seenAt === undefined) throw new Error(`the change was not seen within ${SEEN_CEILING_MS} ms`)
    return { stallMs, seenMs: seenAt - start }
  } finally {
    child.kill()
  }
}

/**
 * `<prefix>.stall` and `<prefix>.seen`: the medians of three changes by
 * another process, to seeded records 1/3, 1/2 and 2/3 into the store (a
 * busy machine adds its own gaps; one change could be read off one of them).
 */
async function stallRows (prefix: string, once: (target: number) => Promise<{ stallMs: number, seenMs: number }>): Promise<void> {
  const seen: number[] = []
  await rows.row(`${prefix}.stall`, async () => {
    const stalls: number[] = []
    for (const target of [Math.floor(n / 3), Math.floor(n / 2), Math.floor(2 * n / 3)]) {
      const r = await once(target)
      stalls.push(r.stallMs)
      seen.push(r.seenMs)
    }
    rows.log(`stalls ${stalls.map((x) => x.toFixed(1)).join(', ')} ms`)
    return median(stalls)
  })
  if (typeof rows.cells[`${prefix}.stall`] === 'number') rows.cells[`${prefix}.seen`] = median(seen)
}

async function apiKeyRows (prefix: string, store: FileApiKeyStore | MemoryApiKeyStore, n: number): Promise<void> {
  const pool = spread(n, POOL).map(keyOf)
  await rows.row(`${prefix}.verify`, () => microsPerCall((k) => { check(store.verify(pool[k % pool.length]!) !== null, 'a seeded key did not verify') }, CALL_CPU_MS))
  const issued: Array<{ key: string, keyId: string }> = []
  // D-BENCH-05: a change is timed with the first lookup that sees it (a store may leave work to that lookup).
  await rows.row(`${prefix}.issue`, () => cpuPerOp(async () => {
    const { key, record } = await store.issue({ label: 'bench issued', tags: ['api'] })
    check(store.verify(key) !== null, 'an issued key did not verify')
    issued.push({ key, keyId: record.keyId })
  }, OPS))
  await rows.row(`${prefix}.revoke`, () => {
    if (issued.length === 0) throw new Error('no key was issued to revoke')
    return cpuPerOp(async (k) => {
      const { key, keyId } = issued[k]!
      check(await store.revoke(keyId), 'revoke found no key')
      check(store.verify(key) === null, 'a revoked key still verified')
    }, { ...OPS, maxOps: issued.length })
  })
}

async function fileKeys (n: number, dir: string): Promise<void> {
  const path = join(dir, 'keys.json')
  await rows.row('keys.file', async () => await seedKeyFile(path, n) / 2 ** 20)
  // Run the code once on a one-key store first: compiled validators and
  // code are then not counted as the first store's memory or time.
  const warmPath = join(dir, 'warm-keys.json')
  await seedKeyFile(warmPath, 1)
  const warm = await FileApiKeyStore.open(warmPath, OPEN_KEYS)
  check(warm.verify(keyOf(0)) !== null, 'the warm-up key did not verify')
  await warm.close()
  // One change through a throwaway store first: the file is then in the
  // format the store itself writes (a journal store converts the seeded v1
  // document here), so `open` below reads what a running deployment has.
  const converter = await FileApiKeyStore.open(path, OPEN_KEYS)
  await converter.delete((await converter.issue({ label: 'convert' })).record.keyId)
  await converter.close()

  const heap = await heapAfterGc()
  const cpu = cpuMs()
  const store = await FileApiKeyStore.open(path, OPEN_KEYS)
  rows.cells['keys.open'] = cpuMs() - cpu
  // The first change after opening a v1 file (a store keeping another format converts it here), not timed.
  check(store.verify((await store.issue({ label: 'warm-up' })).key) !== null, 'the warm-up key did not verify')
  await rows.row('keys.memory', async () => (await heapAfterGc() - heap) / n)

  await apiKeyRows('keys', store, n)
  await rows.row('stall.idle', async () => median([await idleGap(1000), await idleGap(1000), await idleGap(1000)]))
  await stallRows('keys', async (i) => await reloadStall('keys', path, keyIdOf(i), () => store.verify(keyOf(i)) === null))
  // Last-use times: recorded by verify, written back by close().
  const pool = spread(n, POOL).map(keyOf)
  for (const key of pool) store.verify(key)
  await rows.row('keys.flush', async () => {
    const start = cpuMs()
    await store.close()
    return cpuMs() - start
  })
}

async function memoryKeys (n: number, seedCapMs: number): Promise<void> {
  const warm = new MemoryApiKeyStore()
  await warm.add(keyOf(0), { label: 'warm-up' })
  check(warm.verify(keyOf(0)) !== null, 'the warm-up key did not verify')

  const heap = await heapAfterGc()
  const store = new MemoryApiKeyStore()
  const wall = performance.now()
  const cpu = cpuMs()
  for (let i = 0; i < n; i++) {
    await store.add(keyOf(i), { label: `service ${i}`, tags: ['api'] })
    if (i % 256 === 255 && performance.now() - wall > seedCapMs) {
      throw new Error(`not measured: seeding stopped at ${i + 1} keys, over the ${(seedCapMs / 60_000).toFixed(0)} min cap`)
    }
  }
  rows.cells['mkeys.seed'] = (cpuMs() - cpu) / 1000
  await rows.row('mkeys.memory', async () => (await heapAfterGc() - heap) / n)
  await apiKeyRows('mkeys', store, n)
}

/** Login work: verify minus the scrypt floor, paired over three interleaved rounds (medians). */
async function loginRows (n: number, stores: Record<string, MemoryUserStore | FileUserStore>, hash: string, floorId?: string): Promise<void> {
  const pool = spread(n, POOL).map(identityOf)
  const parsed = parsePasswordHash(hash)
  const floor = (): Promise<number> => microsPerAsyncCall(async () => { check(await verifyPassword(PASSWORD, parsed), 'the floor hash did not verify') }, CALL_CPU_MS / 2)
  const login = (store: MemoryUserStore | FileUserStore) => microsPerAsyncCall(async (k) => { check(await store.verify(pool[k % pool.length]!, PASSWORD) !== null, 'a seeded user did not verify') }, CALL_CPU_MS / 2)
  const floors: number[] = []
  const work = new Map<string, number[]>(Object.keys(stores).map((id) => [id, []]))
  try {
    for (let round = 0; round < 3; round++) {
      const f = await floor()
      floors.push(f)
      for (const [id, store] of Object.entries(stores)) work.get(id)!.push(await login(store) - f)
    }
    if (floorId !== undefined) rows.cells[floorId] = median(floors)
    for (const [id, xs] of work) rows.cells[id] = median(xs)
  } catch (err) {
    for (const id of [...Object.keys(stores), ...(floorId === undefined ? [] : [floorId])]) rows.cells[id] = { failed: rows.messageOf(err) }
  }
  rows.log(`login ${[...work].map(([id, xs]) => `${id} ${median(xs).toFixed(1)}`).join(', ')}, floor ${median(floors).toFixed(1)} µs`)
}

async function fileUsers (n: number, dir: string): Promise<void> {
  const hash = await hashPassword(PASSWORD, CHEAP_SCRYPT)
  const path = join(dir, 'users.json')
  await rows.row('users.file', async () => await seedUserFile(path, n, hash) / 2 ** 20)
  const warmPath = join(dir, 'warm-users.json')
  await seedUserFile(warmPath, 1, hash)
  const warm = await FileUserStore.open(warmPath, { scrypt: CHEAP_SCRYPT })
  check(await warm.verify(identityOf(0), PASSWORD) !== null, 'the warm-up user did not verify')
  check(await warm.standing(identityOf(0)) !== null, 'the warm-up user has no standing')
  // As for keys: one change through a throwaway store, so `open` reads the store's own format.
  const converter = await FileUserStore.open(path, { scrypt: CHEAP_SCRYPT })
  await converter.add('convert', { password: PASSWORD })
  await converter.delete('convert')
  await (converter as unknown as { close?: () => Promise<void> }).close?.()

  const heap = await heapAfterGc()
  const cpu = cpuMs()
  const store = await FileUserStore.open(path, { scrypt: CHEAP_SCRYPT })
  rows.cells['users.open'] = cpuMs() - cpu
  // The first change after opening a v1 file, not timed (see fileKeys).
  await store.add('warm-up', { password: PASSWORD, tags: ['staff'] })
  check(await store.get('warm-up') !== null, 'the warm-up user is missing')
  await rows.row('users.memory', async () => (await heapAfterGc() - heap) / n)

  // A second view of the same file that checks the file on every lookup: a login after watchInterval.
  const stale = await FileUserStore.open(path, { watchInterval: 0, scrypt: CHEAP_SCRYPT })
  await loginRows(n, { 'users.loginFresh': store, 'users.loginStale': stale }, hash, 'users.floor')
  await (stale as unknown as { close?: () => Promise<void> }).close?.()

  const added: string[] = []
  await rows.row('users.add', () => cpuPerOp(async (k) => {
    const identity = `added-${k}`
    await store.add(identity, { password: PASSWORD, tags: ['staff'] })
    check(await store.get(identity) !== null, 'an added user is missing')
    added.push(identity)
  }, OPS))
  await rows.row('users.disable', () => {
    if (added.length === 0) throw new Error('no user was added to disable')
    return cpuPerOp(async (k) => {
      check(await store.setEnabled(added[k]!, false), 'setEnabled found no user')
      check(await store.standing(added[k]!) === null, 'a disabled user still has a standing')
    }, { ...OPS, maxOps: added.length })
  })
  await stallRows('users', async (i) => await reloadStall('users', path, identityOf(i), () => store.standing(identityOf(i)).then((s) => s === null)))
  await (store as unknown as { close?: () => Promise<void> }).close?.()
}

async function memoryUsers (n: number): Promise<void> {
  const warm = new MemoryUserStore({ scrypt: CHEAP_SCRYPT })
  await warm.add('warm-up', { password: PASSWORD })
  check(await warm.verify('warm-up', PASSWORD) !== null, 'the warm-up user did not verify')

  const heap = await heapAfterGc()
  const store = new MemoryUserStore({ scrypt: CHEAP_SCRYPT })
  // 64 at a time: each add hashes its own password (on the thread pool).
  for (let i = 0; i < n; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, n - i) }, (_, j) => store.add(identityOf(i + j), { password: PASSWORD, tags: ['staff'] })))
  }
  await rows.row('musers.memory', async () => (await heapAfterGc() - heap) / n)
  await loginRows(n, { 'musers.login': store }, await hashPassword(PASSWORD, CHEAP_SCRYPT))
}

async function sessions (n: number): Promise<void> {
  const now = Date.now()
  const record = (i: number) => ({
    identity: identityOf(i),
    tags: ['staff'],
    data: {},
    createdAt: now,
    expiresAt: now + 8 * 3600_000,
    version: 1,
    via: 'password',
    stamp: sha256(`stamp ${i}`).slice(0, 22)
  })
  const keyOfSession = (i: number): string => sha256(`session ${i}`)
  const warm = new MemorySessionStore({ max: 10 })
  warm.set(keyOfSession(0), record(0), null)
  check(warm.get(keyOfSession(0)) !== null, 'the warm-up session is missing')

  const heap = await heapAfterGc()
  const store = new MemorySessionStore({ max: n })
  for (let i = 0; i < n; i++) check(await store.set(keyOfSession(i), record(i), null) === 'written', 'a session was not written')
  await rows.row('sessions.memory', async () => {
    const bytes = await heapAfterGc() - heap
    if (store.size !== n) throw new Error(`kept ${store.size} of ${n} sessions`)
    return bytes / n
  })
  const pool = spread(n, POOL).map(keyOfSession)
  await rows.row('sessions.get', () => microsPerCall((k) => { check(store.get(pool[k % pool.length]!) !== null, 'a session is missing') }, CALL_CPU_MS))
}

// A store that could not be opened or seeded fails the whole column of this kind, except what was measured before.
const result: WorkerResult = await rows.collect(async () => {
  if (kind === 'file-keys') await fileKeys(n, dir)
  else if (kind === 'memory-keys') await memoryKeys(n, Number(seedCap))
  else if (kind === 'file-users') await fileUsers(n, dir)
  else if (kind === 'memory-users') await memoryUsers(n)
  else if (kind === 'sessions') await sessions(n)
  else throw new Error(`no kind ${String(kind)}`)
})
process.send(result, () => process.exit(0))
