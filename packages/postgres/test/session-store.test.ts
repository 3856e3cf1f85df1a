import { test } from 'tap'
import type { SessionRecord } from '@fastify-gatehouse/session'
import { PostgresSessionStore, sweepDefaults } from '../src/index.js'
import { sessionStoreConformance } from '../../../test-helpers/conformance/sessions.js'
import { fakeClock } from '../../../test-helpers/clock.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { needPostgres } from './helpers/postgres.js'
import { migratedDatabase, PATIENT, recordingPool, testPool } from './helpers/stores.js'
import { sqlNames } from '../src/names.js'
import { sessionStatements } from '../src/session-statements.js'

const postgres = await needPostgres()
const record = (identity: string | null, expiresAt: number, data: Record<string, unknown> = {}, version = 1): SessionRecord =>
  ({ identity, tags: identity === null ? [] : ['t'], data, createdAt: Date.now(), expiresAt, version, via: null, stamp: null })

test('PostgresSessionStore conformance (url: the store opens and ends its pool; the real clock)', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const stores: PostgresSessionStore[] = []
  t.teardown(async () => { for (const store of stores) await store.close() })
  await sessionStoreConformance(t, async () => {
    await db.pool.query('truncate gatehouse.sessions')
    const store = await PostgresSessionStore.connect({ url: db.url, ...PATIENT, poolSize: 4 })
    stores.push(store)
    return store
  })
})

test('PostgresSessionStore conformance (pool: yours, never ended; another schema and prefix; a fake clock)', postgres, async (t) => {
  const db = await migratedDatabase(t, [{ schema: 'gh_sessions', tablePrefix: 'app_' }])
  const pool = testPool(db.url)
  t.teardown(() => pool.end())
  const clock = fakeClock()
  await sessionStoreConformance(t, async () => {
    await db.pool.query('truncate gh_sessions.app_sessions')
    return await PostgresSessionStore.connect({ pool, schema: 'gh_sessions', tablePrefix: 'app_', now: clock.now })
  }, clock)
  const store = await PostgresSessionStore.connect({ pool, schema: 'gh_sessions', tablePrefix: 'app_' })
  t.equal(store.schema, 'gh_sessions')
  t.equal(store.tablePrefix, 'app_')
  await store.close()
  t.equal((await pool.query('select 1 as one')).rows[0].one, 1, 'close() leaves a pool it did not open usable')
})

test('PostgresSessionStore keeps rows as PostgreSQL sees them', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const store = await PostgresSessionStore.connect({ url: db.url, ...PATIENT, sweepInterval: 0 })
  t.teardown(() => store.close())
  const key = 'q1Bx0rV1mZ4pkmkQe3m1gT2gkqJ0TjvHkzv1Ew4Y3ns'
  const now = Date.now()
  const written = { identity: 'alice', tags: ['ops'], data: { cart: [], n: 1.5, deep: { s: 'x' } }, createdAt: now, expiresAt: now + 60_000, version: 1, via: 'password', stamp: 'st' }
  t.equal(await store.set(key, written, null), 'written')
  t.same(await store.get(key), written, 'round trip, empty arrays kept')
  const { rows } = await db.pool.query('select key, identity, record, expires_at, version from gatehouse.sessions')
  t.same(rows, [{
    key,
    identity: 'alice',
    record: { identity: 'alice', tags: ['ops'], data: { cart: [], n: 1.5, deep: { s: 'x' } }, createdAt: now, via: 'password', stamp: 'st' },
    expires_at: String(now + 60_000),
    version: 1
  }], 'the key as given, the deadline and version in their columns, not in the JSON')
  await store.touch(key, now + 120_000)
  t.match(await store.get(key), { expiresAt: now + 120_000, version: 1 }, 'touch moves the deadline column only')

  // An OIDC sign-in's auth_time, and an unknown sign-in time, survive the round trip (D-OIDC-12).
  for (const authenticatedAt of [now - 3_600_000, null]) {
    const oidc = { ...written, via: 'oidc:corp', stamp: null, authenticatedAt }
    t.equal(await store.set('oidc', oidc, null), 'written')
    t.same(await store.get('oidc'), oidc, `authenticatedAt ${String(authenticatedAt)} kept`)
    await store.destroy('oidc')
  }

  t.equal(await store.set('anon', record(null, now + 60_000), null), 'written')
  t.same((await db.pool.query("select identity from gatehouse.sessions where key = 'anon'")).rows, [{ identity: null }], 'anonymous: no identity')
  t.match(await store.get('anon'), { identity: null, tags: [], via: null, stamp: null })

  // Strings PostgreSQL's jsonb and text refuse: a NUL in the data is kept
  // exactly (json keeps the text); a NUL in the identity too, its index copy
  // reads U+FFFD.
  const odd = { ...record('a\u0000b', now + 60_000, { nul: 'x\u0000y', lone: '\ud800' }) }
  t.equal(await store.set('odd', odd, null), 'written')
  t.same(await store.get('odd'), odd, 'read back exactly')
  t.same((await db.pool.query("select identity from gatehouse.sessions where key = 'odd'")).rows, [{ identity: 'a\ufffdb' }])
  t.equal(await store.destroyAllFor('a\u0000b'), 1, 'destroyAllFor finds it')

  t.equal(await store.set('past', record('alice', now - 1), null), 'written', 'a record already expired is written…')
  t.equal(await store.get('past'), null, '…and reads as absent')
  t.equal(await store.set('past', record('bob', now + 60_000), null), 'written', 'a new session takes the key of an expired row')
  t.match(await store.get('past'), { identity: 'bob', version: 1 })

  await db.pool.query("insert into gatehouse.sessions values ('hand', null, '[1, 2]', $1, 1), ('hand2', null, '{\"tags\": \"no\"}', $1, 1)", [now + 60_000])
  t.equal(await store.get('hand'), null, 'JSON that is not a record reads as absent')
  t.equal(await store.get('hand2'), null)
})

test('PostgresSessionStore: a regenerated id moves the row, also onto the key of an expired one', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const clock = fakeClock()
  const store = await PostgresSessionStore.connect({ url: db.url, ...PATIENT, sweepInterval: 0, now: clock.now })
  t.teardown(() => store.close())
  const later = clock.now() + 60_000
  await store.set('old', record('alice', clock.now() + 10), null)
  clock.advance(20)
  t.equal(await store.set('src', record('alice', later, { a: 1 }), null), 'written')
  t.equal(await store.set('old', record('alice', later, { a: 1 }, 2), { key: 'src', version: 1 }), 'written', 'the expired row under the new key does not block it')
  t.same((await db.pool.query('select key, version from gatehouse.sessions order by key')).rows, [{ key: 'old', version: 2 }, { key: 'src', version: 0 }],
    'the row moved, the expired one gone, and a note under the old key for destroy (D-SESSION-28)')
  t.equal(await store.set('src', record('alice', later, {}, 3), { key: 'src', version: 2 }), 'gone', 'the old key is no session')
})

test('PostgresSessionStore sweeps expired rows in bounded batches, by its clock', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const pool = recordingPool(db.url)
  t.teardown(() => pool.end())
  const clock = fakeClock()
  const store = await PostgresSessionStore.connect({ pool, sweepInterval: 0, sweepBatch: 1000, now: clock.now })
  t.teardown(() => store.close())
  const now = clock.now()
  await db.pool.query(`insert into gatehouse.sessions (key, identity, record, expires_at, version)
    select 'old' || i, 'alice', '{"tags": [], "createdAt": 0}', $1::bigint - i, 1 from generate_series(0, 2499) as i`, [now])
  for (let i = 0; i < 10; i++) await store.set(`live${i}`, record('alice', now + 60_000), null)
  pool.statements.length = 0
  t.equal(await store.sweep(), 2500, 'every expired row')
  const sweeps = pool.statements.filter((entry) => entry.name?.startsWith('gatehouse:sessions.sweep:'))
  t.same(sweeps.map((entry) => entry.rowCount), [1000, 1000, 500], 'in batches of sweepBatch, until one comes back short')
  t.same(sweeps.map((entry) => entry.values), [[now, 1000], [now, 1000], [now, 1000]])
  t.equal((await db.pool.query('select count(*)::int as n from gatehouse.sessions')).rows[0].n, 10, 'the live ones stay')
  t.equal(await store.sweep(), 0)
  clock.advance(60_001)
  t.equal(await store.sweep(), 10, 'until they expire too')
  t.equal(sweepDefaults.sweepInterval, 60_000)
  t.equal(sweepDefaults.sweepBatch, 1000)
})

test('PostgresSessionStore sweeps on its timer until closed', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const clock = fakeClock()
  const store = await PostgresSessionStore.connect({ url: db.url, ...PATIENT, sweepInterval: 20, sweepBatch: 7, now: clock.now })
  t.teardown(() => store.close())
  await db.pool.query(`insert into gatehouse.sessions (key, identity, record, expires_at, version)
    select 'old' || i, null, '{"tags": [], "createdAt": 0}', $1::bigint - i, 1 from generate_series(0, 99) as i`, [clock.now()])
  await store.set('live', record('alice', clock.now() + 60_000), null)
  await waitUntil(async () => (await db.pool.query('select count(*)::int as n from gatehouse.sessions')).rows[0].n === 1, { what: 'the timer to sweep the expired rows' })
  t.not(await store.get('live'), null)
  await store.close()
  await store.close()
  t.pass('close() stops the timer and can be called twice')
})

test('PostgresSessionStore: a database that does not answer is a 503 on every call', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const store = await PostgresSessionStore.connect({ url: db.url, connectTimeout: 60_000, statementTimeout: 300, poolSize: 2, sweepInterval: 0 })
  t.teardown(() => store.close())
  await store.set('k', record('alice', Date.now() + 60_000), null)
  // Another transaction holds the row: the writes wait past statementTimeout.
  const holder = await db.pool.connect()
  t.teardown(async () => { await holder.query('rollback').catch(() => {}); holder.release() })
  await holder.query('begin')
  await holder.query("select * from gatehouse.sessions where key = 'k' for update")
  const unavailable = { code: 'GATEHOUSE_POSTGRES_UNAVAILABLE', statusCode: 503, headers: { 'retry-after': '5' }, message: 'database unavailable: try again shortly' }
  await t.rejects(store.set('k', record('alice', Date.now() + 60_000, {}, 2), { key: 'k', version: 1 }), unavailable)
  await t.rejects(store.touch('k', Date.now() + 120_000), unavailable)
  await t.rejects(store.destroy('k'), unavailable)
  await t.rejects(store.destroyAllFor('alice'), unavailable)
  await holder.query('rollback')
  t.match(await store.get('k'), { version: 1 }, 'nothing was written')

  const pool = testPool(db.url, 1)
  const ended = await PostgresSessionStore.connect({ pool })
  await pool.end()
  await t.rejects(ended.get('k'), unavailable, 'a pool that is gone')
  await t.rejects(ended.set('n', record('alice', Date.now() + 60_000), null), unavailable)
})

test('PostgresSessionStore: bad options are boot errors naming the option', async (t) => {
  const url = 'postgres://127.0.0.1:1/none'
  const bad = { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS' }
  await t.rejects(PostgresSessionStore.connect({ url, sweepInterval: -1 }), { ...bad, message: /PostgresSessionStore sweepInterval: expected a whole number from 0/ })
  await t.rejects(PostgresSessionStore.connect({ url, sweepInterval: 1.5 }), { ...bad, message: /sweepInterval/ })
  await t.rejects(PostgresSessionStore.connect({ url, sweepBatch: 0 }), { ...bad, message: /sweepBatch/ })
  await t.rejects(PostgresSessionStore.connect({ url, now: 5 } as never), { ...bad, message: /PostgresSessionStore now/ })
  await t.rejects(PostgresSessionStore.connect({ url, prefix: 'x' } as never), { ...bad, message: /PostgresSessionStore prefix: unknown option/ })
  await t.rejects(PostgresSessionStore.connect({ url: 'http://127.0.0.1/x' }), { ...bad, message: /unsupported scheme/ })
  await t.rejects(PostgresSessionStore.connect({ url, connectTimeout: 2000 }), { code: 'GATEHOUSE_POSTGRES_CONNECT', message: /PostgresSessionStore cannot reach PostgreSQL at 127\.0\.0\.1:1\/none/ })
})

test('PostgresSessionStore refuses a schema that is behind, and migrates it when told to', postgres, async (t) => {
  const db = await migratedDatabase(t, [])
  await t.rejects(PostgresSessionStore.connect({ url: db.url, ...PATIENT }), { code: 'GATEHOUSE_POSTGRES_SCHEMA_BEHIND' })
  const store = await PostgresSessionStore.connect({ url: db.url, ...PATIENT, migrate: true })
  t.equal(await store.set('k', record('alice', Date.now() + 60_000), null), 'written')
  await store.close()
})

test('PostgresSessionStore: a destroy that waits on a regenerated id\'s move in progress still ends the moved session (D-SESSION-28)', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const store = await PostgresSessionStore.connect({ url: db.url, ...PATIENT, poolSize: 2, sweepInterval: 0 })
  t.teardown(() => store.close())
  const later = Date.now() + 60_000
  t.equal(await store.set('k-old', record('alice', later), null), 'written')
  const mover = await db.pool.connect()
  try {
    // The move, as the store runs it, in a transaction held open: it holds the row's lock.
    await mover.query('begin')
    const moved = await mover.query(sessionStatements(sqlNames('gatehouse', '')).move.text,
      ['k-old', 'k-new', 'alice', JSON.stringify({ tags: ['t'], data: {}, createdAt: Date.now() }), later, 2, 1, Date.now()])
    t.equal(moved.rowCount, 1, 'moved, not yet committed')
    const destroyed = store.destroy('k-old')
    await waitUntil(async () => (await db.pool.query('select count(*)::int as n from pg_locks where not granted')).rows[0].n > 0, { what: 'the delete waits on the move' })
    await mover.query('commit')
    await destroyed
  } finally {
    mover.release()
  }
  t.equal(await store.get('k-new'), null, 'the delete that skipped the moved row asked again, found the note and followed it')
  t.same((await db.pool.query('select key from gatehouse.sessions')).rows, [], 'no row and no note left')
})
