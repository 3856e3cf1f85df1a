import t from 'tap'
import pg from 'pg'
import {
  migrate, migrationNames, migrationStatusOf, PostgresStore, type ConnectOptions, type PostgresConnection, type PostgresStoreOptions
} from '../src/index.js'
import { catalogOf } from './helpers/catalog.js'
import { needPostgres, testDatabase } from './helpers/postgres.js'

const options = await needPostgres()

/** The smallest store: enough to run the shared connect() checks. */
class ProbeStore extends PostgresStore {
  static async connect (settings: PostgresConnection & PostgresStoreOptions & ConnectOptions): Promise<ProbeStore> {
    return await PostgresStore.connected(new ProbeStore(settings), settings)
  }

  private constructor (settings: PostgresConnection & PostgresStoreOptions & ConnectOptions) {
    super(settings, 'ProbeStore')
  }
}

t.test('migrations against a real PostgreSQL', options, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  const pool = new pg.Pool({ connectionString: db.url, max: 2 })
  // db.drop (the first teardown) ends this pool's idle connections: without
  // a listener, their 'error' event would be thrown.
  pool.on('error', () => {})
  t.teardown(() => pool.end())

  await t.test('a fresh database: every migration pending, none applied', async (t) => {
    const status = await migrationStatusOf({ url: db.url })
    t.same(status, { applied: [], pending: migrationNames, unknown: [] })
  })

  await t.test('a store refuses a schema that is behind, naming the command, and closes its pool', async (t) => {
    await t.rejects(ProbeStore.connect({ url: db.url }), {
      code: 'GATEHOUSE_POSTGRES_SCHEMA_BEHIND',
      message: /schema gatehouse\).*pending: 0001-initial.*gatehouse migrate up --database/
    })
    t.same(await catalogOf(pool, 'gatehouse'), [], 'nothing was created')
  })

  let upCatalog: string[] = []
  await t.test('up creates every table, index, function and trigger', async (t) => {
    const result = await migrate({ url: db.url })
    t.same(result.done, migrationNames)
    t.same(result.status, { applied: migrationNames, pending: [], unknown: [] })
    upCatalog = await catalogOf(pool, 'gatehouse')
    for (const table of ['users', 'api_keys', 'sessions', 'lockout']) {
      t.ok(upCatalog.some((line) => line.startsWith(`index ${table} ${table}_pkey`)), `${table} has its primary key`)
    }
    t.ok(upCatalog.some((line) => line.startsWith('trigger users ')), 'users notify on change')
    t.ok(upCatalog.some((line) => line.startsWith('trigger api_keys ')), 'keys notify on change')
    t.same((await migrate({ url: db.url })).done, [], 'a second up does nothing')
  })

  await t.test('up → down → up leaves an identical catalog', async (t) => {
    const down = await migrate({ url: db.url }, 'down')
    t.same(down.done, [migrationNames.at(-1)])
    const afterDown = await catalogOf(pool, 'gatehouse')
    t.notOk(afterDown.some((line) => /^(column|index) (users|api_keys|sessions|lockout) /.test(line)), 'the tables are gone')
    await migrate({ url: db.url })
    t.same(await catalogOf(pool, 'gatehouse'), upCatalog)
  })

  await t.test('a store connects to a current schema, and migrates a behind one when told to', async (t) => {
    const current = await ProbeStore.connect({ url: db.url })
    await current.close()
    const other = await ProbeStore.connect({ url: db.url, schema: 'gatehouse_two', tablePrefix: 'gh_', migrate: true })
    t.equal(other.schema, 'gatehouse_two')
    t.equal(other.tablePrefix, 'gh_')
    await other.close()
    const prefixed = await catalogOf(pool, 'gatehouse_two')
    t.ok(prefixed.some((line) => line.startsWith('index gh_users gh_users_pkey')))
    t.equal(prefixed.filter((line) => line.startsWith('column gh_users.')).length, upCatalog.filter((line) => line.startsWith('column users.')).length)
  })

  await t.test('a pool you give is never closed', async (t) => {
    const store = await ProbeStore.connect({ pool })
    await store.close()
    t.equal((await pool.query('select 1 as one')).rows[0].one, 1)
  })

  await t.test('a schema migrated by a newer version is refused by stores and by migrate', async (t) => {
    await pool.query("insert into gatehouse.migrations (name, timestamp) values ('9999-from-the-future', now())")
    t.teardown(() => pool.query("delete from gatehouse.migrations where name = '9999-from-the-future'"))
    const where = `${new URL(db.url).host}/${db.name} (schema gatehouse)`
    const message = `the Gatehouse schema in ${where} is newer than this version (unknown migrations: 9999-from-the-future); upgrade Gatehouse or migrate down with the newer version`
    await t.rejects(ProbeStore.connect({ url: db.url }), { code: 'GATEHOUSE_POSTGRES_SCHEMA_AHEAD', message })
    // Issue 25, item 10: migrate() named the database but not the schema.
    await t.rejects(migrate({ url: db.url }), { code: 'GATEHOUSE_POSTGRES_SCHEMA_AHEAD', message }, 'migrate() names the schema too')
  })

  await t.test('the schema-ahead message names a table prefix too', async (t) => {
    await migrate({ url: db.url, schema: 'gatehouse_ahead', tablePrefix: 'gh_' })
    await pool.query("insert into gatehouse_ahead.gh_migrations (name, timestamp) values ('9999-from-the-future', now())")
    const message = `the Gatehouse schema in ${new URL(db.url).host}/${db.name} (schema gatehouse_ahead, table prefix gh_) is newer than this version (unknown migrations: 9999-from-the-future); upgrade Gatehouse or migrate down with the newer version`
    await t.rejects(migrate({ url: db.url, schema: 'gatehouse_ahead', tablePrefix: 'gh_' }), { code: 'GATEHOUSE_POSTGRES_SCHEMA_AHEAD', message })
    await t.rejects(ProbeStore.connect({ url: db.url, schema: 'gatehouse_ahead', tablePrefix: 'gh_' }), { code: 'GATEHOUSE_POSTGRES_SCHEMA_AHEAD', message })
  })

  await t.test('parallel migrations from several processes\' worth of pools run each step once', async (t) => {
    const fresh = { url: db.url, schema: 'gatehouse_race' }
    const results = await Promise.all(Array.from({ length: 8 }, () => migrate(fresh)))
    t.same(results.flatMap((r) => r.done).sort(), migrationNames, 'each migration ran exactly once')
    t.same((await migrationStatusOf(fresh)).pending, [])
  })
})

t.test('bad options are boot errors naming the option', async (t) => {
  await t.rejects(migrate({ url: 'mysql://127.0.0.1/x' }), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: /unsupported scheme/ })
  await t.rejects(migrate({ url: 'postgres://127.0.0.1/x', schema: 'Bad-Name' }), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: /schema/ })
  await t.rejects(migrate({ url: 'postgres://127.0.0.1/x', tablePrefix: '1x' }), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: /tablePrefix/ })
  await t.rejects(migrate({} as never), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: /exactly one of url and pool/ })
  await t.rejects(migrate({ url: 'postgres://127.0.0.1/x', statementTimeout: -1 }), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: /statementTimeout/ })
  await t.rejects(migrate({ url: 'postgres://127.0.0.1/x' }, 'sideways' as never), { code: 'GATEHOUSE_POSTGRES_MIGRATION' })
})

t.test('an unreachable database is a connect error naming host and database, never the password', async (t) => {
  // Port 1 on loopback: refused at once.
  const err = await migrate({ url: 'postgres://gate:s3cret-pw@127.0.0.1:1/somedb', connectTimeout: 5000 }).catch((e: Error) => e)
  t.match(err, { code: 'GATEHOUSE_POSTGRES_CONNECT', message: /127\.0\.0\.1:1\/somedb/ })
  t.notMatch((err as Error).message, /s3cret-pw/)
})
