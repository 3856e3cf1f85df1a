// The longest schema and prefix the options allow (32 + 16 characters):
// every statement still has a name of its own (PostgreSQL compares only
// the first 63 bytes of a prepared statement's name).
import t from 'tap'
import pg from 'pg'
import { PostgresApiKeyStore, PostgresLockoutStore, PostgresSessionStore, PostgresUserStore } from '../src/index.js'
import { needPostgres, testDatabase } from './helpers/postgres.js'

const options = await needPostgres()

t.test('the longest schema and prefix: every store works', options, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  const names = { schema: 'gatehouse_production_eu_west_1ab', tablePrefix: 'tenant_customer1' }
  t.equal(names.schema.length, 32)
  t.equal(names.tablePrefix.length, 16)
  const sessions = await PostgresSessionStore.connect({ url: db.url, ...names, migrate: true, sweepInterval: 0 })
  t.teardown(() => sessions.close())
  const record = { identity: 'alice', tags: [], data: {}, createdAt: Date.now(), expiresAt: Date.now() + 60_000, version: 1, via: null, stamp: null }
  t.equal(await sessions.set('k1', record, null), 'written')
  t.equal(await sessions.set('k2', record, null), 'written')
  t.match(await sessions.get('k1'), { identity: 'alice' })
  await sessions.destroy('k1')
  t.equal(await sessions.destroyAllFor('alice'), 1, 'destroy and destroyAllFor are two statements, not one name')
  const lockout = await PostgresLockoutStore.connect({ url: db.url, ...names, sweepInterval: 0 })
  t.teardown(() => lockout.close())
  const policy = { maxAttempts: 2, backoff: 30, resetAfter: 600 }
  t.equal(await lockout.claim('identity:alice', policy, Date.now()), 0)
  t.equal(await lockout.lockedFor('identity:alice', Date.now()), 0)
  const users = await PostgresUserStore.connect({ url: db.url, ...names, scrypt: { N: 16, r: 1, p: 1 } })
  t.teardown(() => users.close())
  await users.add('bob', { password: 'bob-password' })
  t.equal(await users.setTags('bob', ['ops']), true)
  t.equal(await users.setEnabled('bob', false), true)
  t.same((await users.get('bob'))?.tags, ['ops'])
  const keys = await PostgresApiKeyStore.connect({ url: db.url, ...names })
  t.teardown(() => keys.close())
  const { key, record: issued } = await keys.issue({ label: 'ci' })
  t.match(await keys.verify(key), { keyId: issued.keyId })
  t.equal(await keys.revoke(issued.keyId), true)
  t.equal(await keys.delete(issued.keyId), true)
})

t.test('timeouts and size given beside your own pool are refused, not ignored', async (t) => {
  const pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:1/none' })
  t.teardown(() => pool.end())
  for (const key of ['connectTimeout', 'statementTimeout', 'poolSize']) {
    await t.rejects(PostgresSessionStore.connect({ pool, [key]: 500 }), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: new RegExp(`${key}: applies to a pool the store opens`) })
  }
  await t.rejects(PostgresSessionStore.connect({ url: 'postgres://127.0.0.1/x', schema: null } as never), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: /schema: null/ })
})
