import { test } from 'tap'
import { CLAIM_TTL_MS, MemoryLockoutStore, type LockoutPolicy, type LockoutStore } from '@fastify-gatehouse/auth'
import { PostgresLockoutStore } from '../src/index.js'
import { lockoutStoreConformance } from '../../../test-helpers/conformance/lockout.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { needPostgres } from './helpers/postgres.js'
import { migratedDatabase, PATIENT, recordingPool, testPool } from './helpers/stores.js'

const postgres = await needPostgres()
const policy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }

test('PostgresLockoutStore conformance', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const stores: PostgresLockoutStore[] = []
  t.teardown(async () => { for (const store of stores) await store.close() })
  await lockoutStoreConformance(t, async () => {
    await db.pool.query('truncate gatehouse.lockout')
    const store = await PostgresLockoutStore.connect({ url: db.url, ...PATIENT, poolSize: 4 })
    stores.push(store)
    return store
  })
})

test('PostgresLockoutStore conformance (pool: yours; another schema and prefix)', postgres, async (t) => {
  const db = await migratedDatabase(t, [{ schema: 'gh_lock', tablePrefix: 'x_' }])
  const pool = testPool(db.url)
  t.teardown(() => pool.end())
  await lockoutStoreConformance(t, async () => {
    await db.pool.query('truncate gh_lock.x_lockout')
    return await PostgresLockoutStore.connect({ pool, schema: 'gh_lock', tablePrefix: 'x_' })
  })
  t.equal((await pool.query('select 1 as one')).rows[0].one, 1, 'the pool is still usable')
})

/** A small seeded generator (mulberry32): the same sequence on every run. */
function seeded (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

test('PostgresLockoutStore answers as MemoryLockoutStore (the pure rules) over a seeded random run', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const store = await PostgresLockoutStore.connect({ url: db.url, ...PATIENT, sweepInterval: 0 })
  t.teardown(() => store.close())
  const keys: Array<[string, LockoutPolicy]> = [
    ['identity:alice', policy],
    ['identity:bob', { maxAttempts: 3, backoff: 2.5, resetAfter: 40 }],
    ['address:203.0.113.9', { maxAttempts: 20, backoff: 30, resetAfter: 3600 }],
    ['address:198.51.100.7', { maxAttempts: 1, backoff: 7, resetAfter: 90.5 }]
  ]
  for (const seed of [1, 2, 3]) {
    const random = seeded(seed)
    const memory = new MemoryLockoutStore()
    await db.pool.query('truncate gatehouse.lockout')
    const start = Date.now()
    let now = start
    const steps = 500
    let mismatches = 0
    let refusals = 0
    let locks = 0
    const counts: Record<string, number> = {}
    for (let step = 0; step < steps; step++) {
      // Mostly small steps, sometimes past a claim's lifetime, a lock or resetAfter.
      const r = random()
      now += r < 0.6 ? Math.floor(random() * 1000) : r < 0.85 ? Math.floor(random() * 20_000) : r < 0.95 ? CLAIM_TTL_MS + Math.floor(random() * 60_000) : Math.floor(random() * 4_000_000)
      const [key, p] = keys[Math.floor(random() * keys.length)]!
      const pick = random()
      const op = pick < 0.4 ? 'claim' : pick < 0.7 ? 'recordFailure' : pick < 0.85 ? 'refund' : pick < 0.95 ? 'lockedFor' : 'reset'
      counts[op] = (counts[op] ?? 0) + 1
      const apply = async (s: LockoutStore): Promise<unknown> => {
        switch (op) {
          case 'claim': return await s.claim(key, p, now)
          case 'recordFailure': return await s.recordFailure(key, p, now)
          case 'refund': return await s.refund(key, p, now)
          case 'lockedFor': return await s.lockedFor(key, now)
          default: return await s.reset(key)
        }
      }
      const expected = await apply(memory)
      const actual = await apply(store)
      if (op === 'claim' && expected !== 0) refusals++
      if (op === 'recordFailure' && expected !== 0) locks++
      if (actual !== expected) {
        mismatches++
        t.fail(`seed ${seed}, step ${step}: ${op}(${key}) at +${now - start} ms answered ${String(actual)}, the rules say ${String(expected)}`)
      }
    }
    t.equal(mismatches, 0, `seed ${seed}: ${steps} steps (${Object.entries(counts).map(([op, n]) => `${n} ${op}`).join(', ')}) answered alike`)
    t.ok(counts.claim! > 100 && counts.recordFailure! > 80 && counts.refund! > 30 && counts.lockedFor! > 20 && counts.reset! > 5, 'every call was made many times')
    t.ok(refusals > 20 && locks > 20, `refusals (${refusals}) and locks (${locks}) among them`)
  }
})

test('PostgresLockoutStore keeps a row only while it holds something', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const store = await PostgresLockoutStore.connect({ url: db.url, ...PATIENT, sweepInterval: 0 })
  t.teardown(() => store.close())
  const row = async (key: string): Promise<Record<string, unknown> | undefined> =>
    (await db.pool.query('select failures, locked_until, last_failure, claims, expires_at, xmin::text as xmin from gatehouse.lockout where key = $1', [key])).rows[0]
  const now = Date.now()
  const quick = { maxAttempts: 2, backoff: 30, resetAfter: 120 }

  t.equal(await store.claim('k', { ...quick, resetAfter: 1 }, now), 0)
  t.match(await row('k'), { failures: 0, claims: [String(now)], expires_at: String(now + CLAIM_TTL_MS + 1000) }, 'a claim in flight: kept as long as it holds its place')
  await store.refund('k', quick, now + 10)
  t.equal(await row('k'), undefined, 'a refund that leaves nothing deletes the row')
  await store.refund('never', quick, now)
  t.equal(await row('never'), undefined, 'a refund of nothing writes nothing')

  t.equal(await store.claim('k', quick, now), 0)
  t.equal(await store.recordFailure('k', quick, now + 5), 0)
  t.match(await row('k'), { failures: 1, locked_until: '0', last_failure: String(now + 5), claims: [], expires_at: String(now + 5 + 120_000 + 1000) }, 'a failure: kept for resetAfter')
  t.equal(await store.claim('k', quick, now + 6), 0)
  t.equal(await store.recordFailure('k', quick, now + 6), 30)
  t.match(await row('k'), { failures: 2, locked_until: String(now + 6 + 30_000), expires_at: String(now + 6 + 30_000 + 120_000 + 1000) }, 'locked: kept for the lock and resetAfter after it')
  const before = await row('k')
  t.equal(await store.claim('k', quick, now + 1000), 30, 'a claim while locked is refused…')
  t.same(await row('k'), before, '…and writes nothing (the row version is unchanged)')
  await store.reset('k')
  t.equal(await row('k'), undefined, 'reset deletes')

  // A row past its expires_at counts as absent, swept or not (as Redis drops the key).
  for (let i = 0; i < 4; i++) { await store.claim('old', policy, now); await store.recordFailure('old', policy, now) }
  await db.pool.query("update gatehouse.lockout set expires_at = $1 where key = 'old'", [now + 100])
  t.equal(await store.claim('old', policy, now + 101), 0)
  t.equal(await store.recordFailure('old', policy, now + 101), 0, 'the fifth failure is the first: the four expired with the row')
  t.match(await row('old'), { failures: 1 })

  // Keys PostgreSQL text cannot hold.
  t.equal(await store.claim('identity:a\u0000b', policy, now), 0)
  t.equal(await store.recordFailure('identity:a\u0000b', { ...policy, maxAttempts: 1 }, now), 30)
  t.equal(await store.lockedFor('identity:a\u0000b', now), 30)
  t.match(await row('identity:a\ufffdb'), { failures: 1 }, 'a NUL is kept as U+FFFD')
})

test('PostgresLockoutStore sweeps leftover rows in bounded batches', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const pool = recordingPool(db.url)
  t.teardown(() => pool.end())
  const store = await PostgresLockoutStore.connect({ pool, sweepInterval: 0, sweepBatch: 400 })
  t.teardown(() => store.close())
  const now = Date.now()
  await db.pool.query(`insert into gatehouse.lockout (key, failures, locked_until, last_failure, claims, expires_at)
    select 'address:' || i, 1, 0, $1::bigint - 200000, '{}', $1::bigint - i from generate_series(1, 1000) as i`, [now])
  await store.claim('live', policy, now)
  pool.statements.length = 0
  t.equal(await store.sweep(), 1000)
  t.same(pool.statements.filter((s) => s.name?.startsWith('gatehouse:lockout.sweep:')).map((s) => s.rowCount), [400, 400, 200], 'batches of sweepBatch')
  t.same((await db.pool.query('select key from gatehouse.lockout')).rows, [{ key: 'live' }])

  const timed = await PostgresLockoutStore.connect({ pool, sweepInterval: 20 })
  t.teardown(() => timed.close())
  await db.pool.query(`insert into gatehouse.lockout (key, failures, locked_until, last_failure, claims, expires_at)
    select 'late:' || i, 1, 0, 0, '{}', $1::bigint - i from generate_series(1, 50) as i`, [now])
  await waitUntil(async () => (await db.pool.query('select count(*)::int as n from gatehouse.lockout')).rows[0].n === 1, { what: 'the timer to sweep' })
  t.pass('the timer sweeps')
})

test('PostgresLockoutStore: a database that does not answer is a 503', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const store = await PostgresLockoutStore.connect({ url: db.url, connectTimeout: 60_000, statementTimeout: 300, sweepInterval: 0 })
  t.teardown(() => store.close())
  const now = Date.now()
  await store.claim('k', policy, now)
  const holder = await db.pool.connect()
  t.teardown(async () => { await holder.query('rollback').catch(() => {}); holder.release() })
  await holder.query('begin')
  await holder.query("select * from gatehouse.lockout where key = 'k' for update")
  const unavailable = { code: 'GATEHOUSE_POSTGRES_UNAVAILABLE', statusCode: 503, headers: { 'retry-after': '5' } }
  await t.rejects(store.claim('k', policy, now), unavailable)
  await t.rejects(store.recordFailure('k', policy, now), unavailable)
  await t.rejects(store.refund('k', policy, now), unavailable)
  await t.rejects(store.reset('k'), unavailable)
  await holder.query('rollback')
  t.equal(await store.lockedFor('k', now), 0)
  t.same((await db.pool.query("select claims from gatehouse.lockout where key = 'k'")).rows, [{ claims: [String(now)] }], 'nothing was written')
})

test('PostgresLockoutStore: bad options are boot errors naming the option', async (t) => {
  const url = 'postgres://127.0.0.1:1/none'
  await t.rejects(PostgresLockoutStore.connect({ url, sweepBatch: 100_001 }), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: /PostgresLockoutStore sweepBatch/ })
  await t.rejects(PostgresLockoutStore.connect({ url, now: Date.now } as never), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: /PostgresLockoutStore now: unknown option/ })
  await t.rejects(PostgresLockoutStore.connect({ url, connectTimeout: 2000 }), { code: 'GATEHOUSE_POSTGRES_CONNECT', message: /PostgresLockoutStore cannot reach/ })
})
