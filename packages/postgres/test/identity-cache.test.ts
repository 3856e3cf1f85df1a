import t from 'tap'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { PostgresApiKeyStore, PostgresUserStore } from '../src/index.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { countStatements, FAST_SCRYPT, isPromise, ownDatabase } from './helpers/identity.js'
import { needPostgres } from './helpers/postgres.js'

const options = await needPostgres()
const HOUR = 3_600_000
const garbageKey = (): string => `gak_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`

// Issue 15, item 5: memory is bounded, and the cache answers what it can
// without a query. Every store here is connected after the rows it reads
// were written (by a writer store), so that no notification of those
// writes drops what it caches halfway through.

t.test('PostgresApiKeyStore: a bounded cache; unknown ids kept apart', options, async (t) => {
  const { url, closeLater } = await ownDatabase(t)
  const writer = closeLater(await PostgresApiKeyStore.connect({ url }))
  const issued = await Promise.all(Array.from({ length: 12 }, (_, i) => writer.issue({ label: `svc-${i}` })))
  const hot = issued[0]!
  const pool = closeLater(new pg.Pool({ connectionString: url, max: 4 }))
  const keys = closeLater(await PostgresApiKeyStore.connect({ pool, cacheSize: 5, negativeCacheSize: 3, recheckInterval: HOUR, lastUsedFlushInterval: HOUR }))
  const counted = countStatements(pool)

  await t.test('more keys than the cache holds: it stays at its size', async (t) => {
    for (const { key } of issued) t.ok(await keys.verify(key))
    t.same(keys.cached, { known: 5, unknown: 0 })
  })

  await t.test('a cached key answers synchronously, without a query, for right and wrong secrets', async (t) => {
    const wrong = hot.key.slice(0, -3) + 'AAA'
    // Polled: on a stalled machine a late heartbeat makes the cache read
    // again once (D-POSTGRES-ID4); the cache rules themselves are proven on
    // a fake clock in confirmed-cache.test.ts.
    await waitUntil(() => {
      counted.reset()
      const answer = keys.verify(hot.key)
      return !isPromise(answer) && answer?.keyId === hot.record.keyId && keys.verify(wrong) === null && counted.statements.length === 0
    }, { what: 'a synchronous answer from the cache, with no statement' })
    t.pass('synchronous, no statement')
  })

  await t.test('a flood of made-up key ids: each read once, cached apart; the cache stays at its size', async (t) => {
    counted.reset()
    const garbage = Array.from({ length: 300 }, garbageKey)
    for (const key of garbage) t.equal(await keys.verify(key), null)
    t.same(keys.cached, { known: 5, unknown: 3 }, 'both parts at their size')
    t.equal(counted.statements.length, 300, 'one primary-key read per made-up id')
    t.ok(await keys.verify(hot.key), 'the hot key still verifies')
    await waitUntil(() => {
      counted.reset()
      return keys.verify(garbage.at(-1)!) === null && counted.statements.length === 0
    }, { what: 'a made-up id seen before answered from the negative cache' })
  })

  await t.test('concurrent misses for one key share one query', async (t) => {
    const cold = issued[11]!
    const fresh = closeLater(await PostgresApiKeyStore.connect({ pool, recheckInterval: HOUR }))
    counted.reset()
    const answers = await Promise.all(Array.from({ length: 50 }, () => fresh.verify(cold.key)))
    t.ok(answers.every((record) => record?.keyId === cold.record.keyId))
    t.equal(counted.statements.length, 1, '50 callers, 1 query')
  })

  await t.test('cacheSize 0 caches nothing: every verify reads', async (t) => {
    const none = closeLater(await PostgresApiKeyStore.connect({ pool, cacheSize: 0, negativeCacheSize: 0 }))
    t.ok(await none.verify(hot.key))
    t.ok(isPromise(none.verify(hot.key)))
    t.same(none.cached, { known: 0, unknown: 0 })
  })
})

t.test('PostgresUserStore: standing from a bounded cache, negatives apart; verify always reads', options, async (t) => {
  const { url, closeLater } = await ownDatabase(t)
  const writer = closeLater(await PostgresUserStore.connect({ url, scrypt: FAST_SCRYPT }))
  for (let i = 0; i < 20; i++) await writer.add(`user-${i}`, { password: `pw-${i}`, tags: 'staff' })
  await writer.setEnabled('user-19', false)
  const pool = closeLater(new pg.Pool({ connectionString: url, max: 4 }))
  const users = closeLater(await PostgresUserStore.connect({ pool, scrypt: FAST_SCRYPT, cacheSize: 5, negativeCacheSize: 3, recheckInterval: HOUR }))
  const counted = countStatements(pool)

  for (let i = 0; i < 19; i++) t.same((await users.standing(`user-${i}`))?.tags, ['staff'])
  for (let i = 0; i < 10; i++) t.equal(await users.standing(`ghost-${i}`), null)
  t.equal(await users.standing('user-19'), null, 'a disabled user has no standing')
  t.same(users.cached, { known: 5, unknown: 3 }, 'each part at its size')

  await waitUntil(async () => {
    counted.reset()
    for (let i = 0; i < 10; i++) await users.standing('user-18')
    return counted.statements.length === 0
  }, { what: 'ten standings from the cache, with no statement' })
  counted.reset()
  t.ok(await users.verify('user-18', 'pw-18'))
  t.ok(await users.verify('user-18', 'pw-18'))
  t.equal(counted.statements.length, 2, 'verify reads the row every time')
})
