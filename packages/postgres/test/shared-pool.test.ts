// createPostgresPool: one pool with the stores' own settings, for several
// stores to share (issue 25, item 4; D-POSTGRES-23).
import t from 'tap'
import {
  createPostgresPool, PostgresApiKeyStore, PostgresLockoutStore, PostgresSessionStore, PostgresUserStore
} from '../src/index.js'
import { needPostgres } from './helpers/postgres.js'
import { migratedDatabase } from './helpers/stores.js'

const options = await needPostgres()

t.test('bad options are boot errors naming the option', async (t) => {
  const url = 'postgres://gate:s3cret-pw@127.0.0.1:1/app'
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ url, schema: 'auth' }, 'createPostgresPool schema: unknown option'],
    [{ url, poolSize: 0 }, 'createPostgresPool poolSize: expected a whole number from 1 to 1000'],
    [{ url, connectTimeout: 'soon' }, 'createPostgresPool connectTimeout: expected a whole number from 1 to 3600000'],
    [{ url: 'mysql://gate:s3cret-pw@127.0.0.1/app' }, 'createPostgresPool url: unsupported scheme "mysql:" (expected postgres: or postgresql:)']
  ]
  for (const [given, message] of cases) {
    t.throws(() => createPostgresPool(given as never), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message }, message)
  }
})

t.test('four stores on one pool hold at most its connections (plus the two listeners), under concurrent calls', options, async (t) => {
  const db = await migratedDatabase(t)
  const pool = createPostgresPool({ url: db.url, poolSize: 2, connectTimeout: 60_000, statementTimeout: 60_000 })
  t.teardown(() => pool.end())
  const users = await PostgresUserStore.connect({ pool, scrypt: { N: 1024, r: 8, p: 1 } })
  const keys = await PostgresApiKeyStore.connect({ pool })
  const sessions = await PostgresSessionStore.connect({ pool })
  const lockout = await PostgresLockoutStore.connect({ pool })
  t.teardown(async () => { for (const store of [users, keys, sessions, lockout]) await store.close() })
  // The listeners wait as long as the pool does: its connectionTimeoutMillis, not the 5 s default.
  t.equal((users as unknown as { options: { connectTimeout: number } }).options.connectTimeout, 60_000)

  await Promise.all(Array.from({ length: 40 }, async (_, i) => {
    if (i % 4 === 0) return await users.standing(`nobody-${i}`)
    if (i % 4 === 1) return await keys.list()
    if (i % 4 === 2) return await sessions.get(`key-${i}`)
    return await lockout.lockedFor(`identity:someone-${i}`, Date.now())
  }))
  const { rows } = await db.pool.query<{ name: string, n: number }>(
    'select application_name as name, count(*)::int as n from pg_stat_activity where datname = $1 and application_name like \'gatehouse%\' group by 1 order by 1', [db.name])
  const held = Object.fromEntries(rows.map((r) => [r.name, r.n]))
  t.ok(held.gatehouse >= 1 && held.gatehouse <= 2, `at most the pool's two (${held.gatehouse})`)
  t.equal(held['gatehouse-listener'], 2, 'and a listener each for users and keys')
  for (const store of [users, keys, sessions, lockout]) await store.close()
  t.notOk(pool.ended, 'closing the stores leaves the pool to its owner')
})
