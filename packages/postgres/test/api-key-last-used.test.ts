import t from 'tap'
import pg from 'pg'
import { PostgresApiKeyStore } from '../src/index.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { countStatements, ownDatabase } from './helpers/identity.js'
import { needPostgres } from './helpers/postgres.js'

const options = await needPostgres()
const HOUR = 3_600_000
const TOUCH = /set last_used_at = u\.at/

// Issue 15, item 3: last use is remembered in memory and written for all
// keys used in one statement, every lastUsedFlushInterval and by close();
// never per request.

t.test('last use: one statement for many keys, none per request, and close() writes the rest', options, async (t) => {
  const { url, admin, closeLater } = await ownDatabase(t)
  const pool = closeLater(new pg.Pool({ connectionString: url, max: 3 }))
  const keys = closeLater(await PostgresApiKeyStore.connect({ pool, lastUsedFlushInterval: HOUR, recheckInterval: HOUR }))
  const counted = countStatements(pool)
  const issued = await Promise.all(Array.from({ length: 30 }, (_, i) => keys.issue({ label: `svc-${i}` })))
  const lastUsed = async (): Promise<Map<string, Date | null>> =>
    new Map((await admin.query('select key_id, last_used_at from gatehouse.api_keys')).rows.map((row) => [row.key_id, row.last_used_at]))

  counted.reset()
  for (let round = 0; round < 3; round++) for (const { key } of issued) t.ok(await keys.verify(key))
  t.equal(counted.statements.filter((text) => TOUCH.test(text)).length, 0, '90 verifications wrote nothing')
  t.ok([...(await lastUsed()).values()].every((at) => at === null), 'nothing in the table yet')
  t.ok((await keys.list()).every((record) => record.lastUsedAt !== null), 'list shows the times kept in memory')

  counted.reset()
  await keys.flushLastUsed()
  t.equal(counted.statements.length, 1, 'the flush is one statement')
  t.match(counted.statements[0], TOUCH)
  const written = await lastUsed()
  t.ok(issued.every(({ record }) => written.get(record.keyId) instanceof Date), 'for all 30 keys')
  counted.reset()
  await keys.flushLastUsed()
  t.same(counted.statements, [], 'nothing used since: nothing written')

  await t.test('a time is never moved back', async (t) => {
    const { record, key } = issued[0]!
    await admin.query("update gatehouse.api_keys set last_used_at = '2999-01-01T00:00:00Z' where key_id = $1", [record.keyId])
    await keys.verify(key)
    await keys.flushLastUsed()
    t.equal((await lastUsed()).get(record.keyId)?.toISOString(), '2999-01-01T00:00:00.000Z')
  })

  await t.test('the flush announces nothing: another instance keeps its cache', async (t) => {
    const other = closeLater(await PostgresApiKeyStore.connect({ url, recheckInterval: HOUR }))
    const [watched, marker] = [issued[1]!, issued[2]!]
    t.ok(await other.verify(watched.key))
    t.ok(await other.verify(marker.key))
    t.same(other.cached, { known: 2, unknown: 0 })
    await keys.verify(watched.key)
    await keys.flushLastUsed()
    // Notifications arrive in commit order: once the marker's revoke has
    // reached the other instance, a notification of the flush would have too.
    await keys.revoke(marker.record.keyId)
    await waitUntil(async () => await other.verify(marker.key) === null, { what: 'the marker revoke' })
    // Both entries are back to two: the marker's, read again (revoked), and
    // the watched key's, which no notification dropped.
    t.same(other.cached, { known: 2, unknown: 0 }, 'the key used and flushed on one instance is still cached on the other')
  })

  await t.test('close() writes what is pending', async (t) => {
    const closing = await PostgresApiKeyStore.connect({ url, lastUsedFlushInterval: HOUR })
    const { record, key } = issued[3]!
    await admin.query('update gatehouse.api_keys set last_used_at = null where key_id = $1', [record.keyId])
    t.ok(await closing.verify(key))
    await closing.close()
    t.type((await lastUsed()).get(record.keyId), Date)
  })

  await t.test('the timer writes on its own', async (t) => {
    const timed = closeLater(await PostgresApiKeyStore.connect({ url, lastUsedFlushInterval: 50 }))
    const { record, key } = issued[4]!
    await admin.query('update gatehouse.api_keys set last_used_at = null where key_id = $1', [record.keyId])
    t.ok(await timed.verify(key))
    await waitUntil(async () => (await lastUsed()).get(record.keyId) instanceof Date, { what: 'the timed flush' })
  })

  await t.test('a flush that fails keeps the times for the next one', async (t) => {
    const brokenPool = closeLater(new pg.Pool({ connectionString: url, max: 2 }))
    brokenPool.on('error', () => {})
    const flaky = closeLater(await PostgresApiKeyStore.connect({ pool: brokenPool, lastUsedFlushInterval: HOUR }))
    const { record, key } = issued[5]!
    await admin.query('update gatehouse.api_keys set last_used_at = null where key_id = $1', [record.keyId])
    t.ok(await flaky.verify(key))
    const query = brokenPool.query.bind(brokenPool)
    ;(brokenPool as unknown as { query: unknown }).query = async () => { throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }
    await t.rejects(flaky.flushLastUsed(), { code: 'GATEHOUSE_POSTGRES_UNAVAILABLE' })
    ;(brokenPool as unknown as { query: unknown }).query = query
    await flaky.flushLastUsed()
    t.type((await lastUsed()).get(record.keyId), Date, 'written by the next flush')
  })
})
