// Two store instances, each with its own pool (two server instances), on
// one database: every claim, failure and conditional write is decided by
// PostgreSQL, so racing calls from both are counted and ordered as from one.
import { test } from 'tap'
import type { SessionRecord, SessionWriteResult } from '@fastify-gatehouse/session'
import { PostgresLockoutStore, PostgresSessionStore } from '../src/index.js'
import { needPostgres } from './helpers/postgres.js'
import { migratedDatabase, PATIENT } from './helpers/stores.js'

const postgres = await needPostgres()
const policy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }
const record = (identity: string | null, data: Record<string, unknown> = {}, version = 1): SessionRecord =>
  ({ identity, tags: [], data, createdAt: Date.now(), expiresAt: Date.now() + 600_000, version, via: null, stamp: null })
const count = <T>(values: readonly T[], value: T): number => values.filter((v) => v === value).length

test('lockout across two instances', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const a = await PostgresLockoutStore.connect({ url: db.url, ...PATIENT, poolSize: 5, sweepInterval: 0 })
  const b = await PostgresLockoutStore.connect({ url: db.url, ...PATIENT, poolSize: 5, sweepInterval: 0 })
  t.teardown(async () => { await a.close(); await b.close() })
  const on = (i: number): PostgresLockoutStore => i % 2 === 0 ? a : b

  await t.test('60 parallel claims on one new key: exactly maxAttempts go ahead', async (t) => {
    for (let round = 0; round < 3; round++) {
      const key = `identity:burst${round}`
      const now = Date.now()
      const waits = await Promise.all(Array.from({ length: 60 }, async (_v, i) => await on(i).claim(key, policy, now)))
      t.equal(count(waits, 0), 5, `round ${round}: five of sixty, over both instances, go ahead`)
      t.ok(waits.filter((w) => w !== 0).every((w) => w === 30), 'the rest wait for the lock the five would start')
      const { rows } = await db.pool.query('select failures, cardinality(claims) as claims from gatehouse.lockout where key = $1', [key])
      t.same(rows, [{ failures: 0, claims: 5 }], 'one row, five claims in flight')
    }
  })

  await t.test('40 parallel failures are all counted', async (t) => {
    const now = Date.now()
    const key = 'address:203.0.113.9'
    const claims = await Promise.all(Array.from({ length: 40 }, async (_v, i) => await on(i).claim(key, { ...policy, maxAttempts: 100 }, now)))
    t.equal(count(claims, 0), 40)
    const locks = await Promise.all(Array.from({ length: 40 }, async (_v, i) => await on(i).recordFailure(key, policy, now + 1)))
    const { rows } = await db.pool.query('select failures, claims, locked_until from gatehouse.lockout where key = $1', [key])
    t.same(rows, [{ failures: 40, claims: [], locked_until: String(now + 1 + 86_400_000) }], 'forty failures, no claim left, the lock at its cap')
    t.equal(count(locks, 0), 4, 'the first four did not lock')
    t.same(locks.filter((s) => s > 0).sort((x, y) => x - y).slice(0, 3), [30, 60, 120], 'each later one doubled it')
    t.equal(await a.lockedFor(key, now + 1), 86_400)
    t.equal(await b.lockedFor(key, now + 1), 86_400)
  })

  await t.test('claims and refunds racing on a row that comes and goes: nothing lost, nothing left behind', async (t) => {
    // A refund that empties the key deletes its row while other claims wait
    // on its lock: they find no row, and insert it anew (one of them; the
    // others lock the one inserted).
    const key = 'identity:busy'
    const now = Date.now()
    const answers: number[] = []
    await Promise.all(Array.from({ length: 30 }, async (_v, i) => {
      for (let n = 0; n < 5; n++) {
        const wait = await on(i + n).claim(key, policy, now)
        answers.push(wait)
        if (wait === 0) await on(i + n + 1).refund(key, policy, now)
      }
    }))
    t.ok(answers.every((w) => w === 0 || w === 30), 'each claim went ahead or waited for the lock five would start')
    t.ok(count(answers, 0) >= 30, `${count(answers, 0)} of ${answers.length} went ahead`)
    t.same((await db.pool.query('select key from gatehouse.lockout where key = $1', [key])).rows, [], 'the last refund deleted the row')
  })
})

test('sessions across two instances', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const a = await PostgresSessionStore.connect({ url: db.url, ...PATIENT, poolSize: 5, sweepInterval: 0 })
  const b = await PostgresSessionStore.connect({ url: db.url, ...PATIENT, poolSize: 5, sweepInterval: 0 })
  t.teardown(async () => { await a.close(); await b.close() })
  const on = (i: number): PostgresSessionStore => i % 2 === 0 ? a : b

  await t.test('writes of one loaded version: exactly one is written', async (t) => {
    for (let round = 0; round < 5; round++) {
      const key = `k${round}`
      t.equal(await a.set(key, record('alice'), null), 'written')
      const results = await Promise.all(Array.from({ length: 30 }, async (_v, i) => await on(i).set(key, record('alice', { i }, 2), { key, version: 1 })))
      t.equal(count(results, 'written'), 1, `round ${round}: one written`)
      t.equal(count(results, 'conflict'), 29, 'the rest are conflicts, not gone')
      const winner = results.indexOf('written')
      t.match(await b.get(key), { version: 2, data: { i: winner } }, 'the winner\'s record is there')
    }
  })

  await t.test('new sessions under one key: exactly one is created', async (t) => {
    const results = await Promise.all(Array.from({ length: 30 }, async (_v, i) => await on(i).set('fresh', record('alice', { i }), null)))
    t.equal(count(results, 'written'), 1)
    t.equal(count(results, 'conflict'), 29)
  })

  await t.test('a destroy racing writes: the session stays destroyed', async (t) => {
    for (let round = 0; round < 10; round++) {
      const key = `d${round}`
      await a.set(key, record('alice'), null)
      // Writes of version 1, and of each version as it moves, around one destroy.
      let version = 1
      const write = async (i: number): Promise<SessionWriteResult> => {
        const result = await on(i).set(key, record('alice', { i }, version + 1), { key, version })
        if (result === 'written') version++
        return result
      }
      const before = Array.from({ length: 12 }, async (_v, i) => await write(i))
      const destroyed = b.destroy(key).then(() => 'destroyed' as const)
      const during = Array.from({ length: 12 }, async (_v, i) => await write(i + 1))
      const results = await Promise.all([...before, destroyed, ...during])
      t.equal(await a.get(key), null, `round ${round}: never written back`)
      t.equal(await b.get(key), null)
      t.ok(results.every((r) => r === 'destroyed' || r === 'written' || r === 'gone' || r === 'conflict'))
      const after = await on(round).set(key, record('alice', {}, version + 1), { key, version })
      t.equal(after, 'gone', 'a write after the destroy is gone')
      t.same((await db.pool.query('select key from gatehouse.sessions where key = $1', [key])).rows, [], 'no row')
    }
  })

  await t.test('destroyAllFor racing new sign-ins: every earlier session ends; each new one is counted or kept', async (t) => {
    for (let round = 0; round < 5; round++) {
      const identity = `carol${round}`
      const earlier = Array.from({ length: 20 }, (_v, i) => `e${round}-${i}`)
      for (const key of earlier) await on(round).set(key, record(identity), null)
      const later = Array.from({ length: 20 }, (_v, i) => `n${round}-${i}`)
      const [ended, ...signIns] = await Promise.all([
        b.destroyAllFor(identity),
        ...later.map(async (key, i) => await on(i).set(key, record(identity), null))
      ])
      t.ok(signIns.every((r) => r === 'written'), 'every sign-in was written')
      for (const key of earlier) t.equal(await a.get(key), null, `round ${round}: ${key} ended`)
      const kept = (await Promise.all(later.map(async (key) => await a.get(key)))).filter((r) => r !== null).length
      t.equal(Number(ended) + kept, earlier.length + later.length, `round ${round}: ${String(ended)} ended + ${kept} signed in after = all`)
      t.equal(await a.destroyAllFor(identity), kept, 'and the ones kept are still that identity\'s')
    }
  })

  await t.test('destroyAllFor racing regenerated ids: no session of the identity survives under its new key', async (t) => {
    for (let round = 0; round < 5; round++) {
      const identity = `dave${round}`
      const keys = Array.from({ length: 20 }, (_v, i) => `r${round}-${i}`)
      for (const key of keys) await a.set(key, record(identity), null)
      const [ended, ...moves] = await Promise.all([
        a.destroyAllFor(identity),
        ...keys.map(async (key, i) => await on(i).set(`${key}-new`, record(identity, {}, 2), { key, version: 1 }))
      ])
      t.equal(ended, keys.length, `round ${round}: all ${keys.length} ended, under the old key or the new`)
      t.ok(moves.every((r) => r === 'written' || r === 'gone'), `${count(moves, 'written')} moved before, ${count(moves, 'gone')} found it gone`)
      const { rows } = await db.pool.query('select key from gatehouse.sessions where identity = $1', [identity])
      t.same(rows, [], 'no row left')
    }
  })
})
