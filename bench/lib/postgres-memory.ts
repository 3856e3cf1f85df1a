// The `memory-keys` and `memory-users` parts of the PostgreSQL benchmark:
// the heap of one process after a PostgreSQL store (default cache) has
// looked up `touches` distinct keys or identities, with the table at the
// size of the column. Each in a fresh process (node --expose-gc).
import { performance } from 'node:perf_hooks'
import { PostgresApiKeyStore, postgresCacheDefaults, PostgresUserStore } from '@fastify-gatehouse/postgres'
import { heapAfterGc } from './growth-measure.js'
import { identityOf, keyOf } from './growth-seed.js'
import type { WorkerConfig } from './postgres-kinds.js'
import { check, type Rows } from './worker-rows.js'

// Lookups in flight at once (a busy server's requests), over the store's pool of 10.
const WIDTH = 32
// Names beyond every table size: the warm-up's unknown lookups.
const WARM_UNKNOWN = 50_000_000

/** Heap growth in MiB, and per name looked up. */
const heapCell = (bytes: number, touches: number, what: string): string => `${(bytes / 2 ** 20).toFixed(1)} MiB (${(bytes / touches).toFixed(0)} B per ${what} looked up)`

/**
 * The index of the j-th name touched: spread over the whole table when it
 * holds more rows than there are touches; otherwise 0, 1, 2, … so that the
 * table's n rows are all touched and the rest are names with no row.
 */
const nameIndex = (j: number, n: number, touches: number): number => n >= touches ? Math.floor(j * n / touches) : j

/**
 * Looks `touches` names up, `WIDTH` at a time, making each name on the fly
 * (a list of them would be heap of the benchmark's own); answers how many
 * were found.
 */
async function touchAll (touches: number, n: number, lookUp: (i: number) => Promise<boolean>): Promise<number> {
  let next = 0
  let found = 0
  const lane = async (): Promise<void> => {
    while (next < touches) if (await lookUp(nameIndex(next++, n, touches))) found++
  }
  await Promise.all(Array.from({ length: WIDTH }, lane))
  return found
}

const bounds = `bounds ${postgresCacheDefaults.cacheSize.toLocaleString('en-US').replaceAll(',', ' ')} + ${postgresCacheDefaults.negativeCacheSize.toLocaleString('en-US').replaceAll(',', ' ')}`

export async function memoryKeys (config: WorkerConfig, rows: Rows): Promise<void> {
  const { n, url, touches } = config
  const store = await PostgresApiKeyStore.connect({ url, lastUsedFlushInterval: 3_600_000 })
  try {
    // The code paths once (a hit, a miss, an unknown id, a last-use write) before the baseline.
    check(await store.verify(keyOf(1)) !== null, 'a seeded key did not verify')
    check(await store.verify(keyOf(WARM_UNKNOWN)) === null, 'an unknown key verified')
    await store.flushLastUsed()
    const before = await heapAfterGc()
    const found = await touchAll(touches, n, async (i) => await store.verify(keyOf(i)) !== null)
    check(found === Math.min(n, touches), `${found} of ${Math.min(n, touches)} seeded keys verified`)
    const after = await heapAfterGc()
    const { known, unknown } = store.cached
    rows.set('heap.keys', heapCell(after - before, touches, 'key'))
    rows.set('heap.keysCached', `${known} + ${unknown} (${bounds})`)
    await rows.row('heap.keysFlush', async () => {
      const start = performance.now()
      await store.flushLastUsed()
      return (performance.now() - start) / 1000
    })
    await rows.row('heap.keysFlushed', async () => {
      return heapCell(await heapAfterGc() - before, touches, 'key')
    })
  } finally {
    await store.close()
  }
}

export async function memoryUsers (config: WorkerConfig, rows: Rows): Promise<void> {
  const { n, url, touches } = config
  const store = await PostgresUserStore.connect({ url })
  try {
    check(await store.standing(identityOf(1)) !== null, 'a seeded user has no standing')
    check(await store.standing(`unknown-${WARM_UNKNOWN}`) === null, 'an unknown user has a standing')
    const before = await heapAfterGc()
    const found = await touchAll(touches, n, async (i) => await store.standing(identityOf(i)) !== null)
    check(found === Math.min(n, touches), `${found} of ${Math.min(n, touches)} seeded users have a standing`)
    const after = await heapAfterGc()
    const { known, unknown } = store.cached
    rows.set('heap.users', heapCell(after - before, touches, 'identity'))
    rows.set('heap.usersCached', `${known} + ${unknown} (${bounds})`)
  } finally {
    await store.close()
  }
}
