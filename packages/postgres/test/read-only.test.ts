import { test } from 'tap'
import { PostgresSessionStore, PostgresUserStore } from '../src/index.js'
import { needPostgres } from './helpers/postgres.js'
import { migratedDatabase, testPool } from './helpers/stores.js'
import { FAST_SCRYPT } from './helpers/identity.js'

const postgres = await needPostgres()

// After a failover a pool may reach a standby, which refuses writes with
// SQLSTATE 25006: "the database cannot take this now", a 503 with
// Retry-After, not a 500 as if the statement were wrong.
test('a write refused as read-only (25006) is GATEHOUSE_POSTGRES_UNAVAILABLE', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const url = new URL(db.url)
  url.searchParams.set('options', '-c default_transaction_read_only=on')
  const pool = testPool(url.toString())
  t.teardown(() => pool.end())
  const users = await PostgresUserStore.connect({ pool, scrypt: FAST_SCRYPT })
  t.teardown(() => users.close())
  await t.rejects(users.add('alice', { password: 'correct horse battery', tags: [] }), { code: 'GATEHOUSE_POSTGRES_UNAVAILABLE', statusCode: 503, cause: { code: '25006' } })
  const sessions = await PostgresSessionStore.connect({ pool, sweepInterval: 0 })
  t.teardown(() => sessions.close())
  const now = Date.now()
  await t.rejects(Promise.resolve(sessions.set('k', { identity: 'alice', tags: [], data: {}, createdAt: now, expiresAt: now + 60_000, version: 1, via: null, stamp: null }, null)),
    { code: 'GATEHOUSE_POSTGRES_UNAVAILABLE', statusCode: 503 })
  t.equal(await sessions.get('k'), null, 'reads still work')
})
