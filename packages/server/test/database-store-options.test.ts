// Issue 25, item 5: every option the PostgreSQL stores document can be set
// through AppServer's `database` and through the config file's
// `{ postgres: … }` (snake_case), reaching the store that takes it; the
// stores share one pool made with the pool options (item 4). The stores'
// connect() is watched to see what each is given. D-SERVER-48, D-CLI-17.
import { test, type Test } from 'tap'
import { EventEmitter } from 'node:events'
import { PassThrough } from 'node:stream'
import type pg from 'pg'
import { migrate, PostgresApiKeyStore, PostgresLockoutStore, PostgresSessionStore, PostgresUserStore } from '@fastify-gatehouse/postgres'
import { AppServer } from '@fastify-gatehouse/server'
import { serveCommand } from '../src/cli/serve.js'
import { needPostgres, testDatabase } from '../../postgres/test/helpers/postgres.js'
import { gatehouse } from './helpers/cli.js'
import { waitUntil } from '../../../test-helpers/wait.js'

const postgres = await needPostgres()

type Role = 'users' | 'tokens' | 'sessions' | 'lockout'
const STORES = { users: PostgresUserStore, tokens: PostgresApiKeyStore, sessions: PostgresSessionStore, lockout: PostgresLockoutStore } as const

/** Records the options each store's connect() is given (several servers may open several of each), until the test ends. */
function watchStores (t: Test): Array<{ role: Role, options: Record<string, unknown> }> {
  const given: Array<{ role: Role, options: Record<string, unknown> }> = []
  for (const [role, Store] of Object.entries(STORES) as Array<[Role, { connect: (options: never) => Promise<unknown> }]>) {
    const connect = Store.connect
    Store.connect = async (options: never) => {
      given.push({ role, options: options as Record<string, unknown> })
      return await connect.call(Store, options)
    }
    t.teardown(() => { Store.connect = connect })
  }
  return given
}

/** What a store was given, the pool left aside (compared on its own). */
function withoutPool (options: Record<string, unknown>): Record<string, unknown> {
  const { pool: _pool, ...rest } = options
  return rest
}

async function migrated (t: Test): Promise<string> {
  const db = await testDatabase()
  t.teardown(db.drop)
  await migrate({ url: db.url })
  return db.url
}

async function statementTimeoutOf (pool: pg.Pool): Promise<string> {
  return (await pool.query<{ statement_timeout: string }>('show statement_timeout')).rows[0]!.statement_timeout
}

test('AppServer database: each store option reaches the stores that take it; one pool with the pool options', postgres, async (t) => {
  const url = await migrated(t)
  const given = watchStores(t)
  const server = new AppServer({
    logger: false,
    database: {
      url,
      connectTimeout: 4321,
      statementTimeout: 1234,
      poolSize: 3,
      cacheSize: 7,
      negativeCacheSize: 5,
      recheckInterval: 2000,
      maxStale: 0,
      sweepInterval: 0,
      sweepBatch: 11,
      lastUsedFlushInterval: 500
    }
  })
  t.teardown(() => server.close())
  await server.ready()
  const byRole = Object.fromEntries(given.map(({ role, options }) => [role, options]))
  t.same(Object.keys(byRole).sort(), ['lockout', 'sessions', 'tokens', 'users'])
  const cache = { cacheSize: 7, negativeCacheSize: 5, recheckInterval: 2000, maxStale: 0 }
  const base = { migrate: false }
  t.same(withoutPool(byRole.users!), { ...base, ...cache }, 'users: the cache options')
  t.same(withoutPool(byRole.tokens!), { ...base, ...cache, lastUsedFlushInterval: 500 }, 'keys: the cache options and the last-use writes')
  t.same(withoutPool(byRole.sessions!), { ...base, sweepInterval: 0, sweepBatch: 11 }, 'sessions: the sweep')
  t.same(withoutPool(byRole.lockout!), { ...base, sweepInterval: 0, sweepBatch: 11 }, 'lockout: the sweep')

  const pool = byRole.users!.pool as pg.Pool
  t.ok(given.every(({ options }) => options.pool === pool), 'the four stores share one pool')
  t.equal(pool.options.max, 3, 'poolSize')
  t.equal(pool.options.connectionTimeoutMillis, 4321, 'connectTimeout')
  t.equal(await statementTimeoutOf(pool), '1234ms', 'statementTimeout')
  await server.close()
  t.ok(pool.ended, 'close() ends the pool it opened')
})

test('AppServer database: { pool } of yours is what the stores share; the pool options beside it are refused', postgres, async (t) => {
  const url = await migrated(t)
  const { createPostgresPool } = await import('@fastify-gatehouse/postgres')
  const mine = createPostgresPool({ url, poolSize: 2 })
  t.teardown(() => mine.end())
  const given = watchStores(t)
  const server = new AppServer({ logger: false, database: { pool: mine, maxStale: 0 } })
  await server.ready()
  t.same(given.map(({ options }) => options.pool === mine), [true, true, true, true])
  await server.close()
  t.notOk(mine.ended, 'a pool you gave stays open')
  for (const key of ['connectTimeout', 'statementTimeout', 'poolSize']) {
    const refused = new AppServer({ logger: false, database: { pool: mine, [key]: 1000 } })
    await t.rejects(refused.ready(), { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: `database.${key}: applies to the pool the server opens from url; set it on the pool you give` })
    await refused.close()
  }
})

test('AppServer database: a bad number is a boot error naming database.<option> and its range', async (t) => {
  const cases: Array<[string, unknown, string]> = [
    ['connectTimeout', 0, 'from 1 to 3600000'],
    ['statementTimeout', 1.5, 'from 1 to 3600000'],
    ['poolSize', 1001, 'from 1 to 1000'],
    ['cacheSize', -1, 'from 0 to 10000000'],
    ['negativeCacheSize', '5', 'from 0 to 10000000'],
    ['recheckInterval', 86_400_001, 'from 0 to 86400000'],
    ['maxStale', null, 'from 0 to 86400000'],
    ['sweepInterval', -5, 'from 0 to 86400000'],
    ['sweepBatch', 0, 'from 1 to 100000'],
    ['lastUsedFlushInterval', 0, 'from 1 to 86400000']
  ]
  for (const [key, value, range] of cases) {
    const server = new AppServer({ logger: false, database: { url: 'postgres://127.0.0.1:1/app', [key]: value } })
    await t.rejects(server.ready(), { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: `database.${key}: expected a whole number ${range}` }, key)
    await server.close()
  }
  const unknown = new AppServer({ logger: false, database: { url: 'postgres://127.0.0.1:1/app', scrypt: { N: 1024, r: 8, p: 1 } } as never })
  await t.rejects(unknown.ready(), { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: /^database\.scrypt: unknown option \(known: url, pool, .*maxStale.*\)$/ })
  await unknown.close()
})

/** Serves `file` from `dir` in this process on a free port; resolves with how to stop it. */
async function serve (dir: string, file: string): Promise<() => Promise<number>> {
  let out = ''
  const signals = new EventEmitter()
  const stdout = new PassThrough().on('data', (chunk: Buffer) => { out += chunk })
  const running = serveCommand(['--config', file, '--port', '0'], { stdin: new PassThrough(), stdout, stderr: new PassThrough().resume(), env: {}, cwd: dir }, signals)
  let failed: Error | undefined
  running.catch((err: Error) => { failed = err })
  await waitUntil(() => {
    if (failed !== undefined) throw failed
    return out.includes('serving at')
  }, { what: 'gatehouse serve to listen' })
  return async () => { signals.emit('SIGTERM'); return await running }
}

test('the config file: every store option in snake_case, each reaching its store', postgres, async (t) => {
  const url = await migrated(t)
  const dir = t.testdir({
    'gatehouse.yaml': [
      'server_app:',
      `  store: { postgres: '${url}', connect_timeout: 4321, statement_timeout: 1234, pool_size: 3, cache_size: 7, negative_cache_size: 5,`,
      '           recheck_interval: 2000, max_stale: 0, sweep_interval: 0, sweep_batch: 11, last_used_flush_interval: 500 }',
      '  login:',
      `    store: { postgres: '${url}', pool_size: 2, sweep_batch: 13, connect_timeout: 3000 }`,
      'middleware:',
      '  session:',
      `    store: { postgres: '${url}', pool_size: 1, sweep_interval: 0, statement_timeout: 2500 }`,
      ''
    ].join('\n')
  })
  const given = watchStores(t)
  const stop = await serve(dir, 'gatehouse.yaml')
  t.teardown(stop)
  const byRole = (role: Role): Array<Record<string, unknown>> => given.filter((g) => g.role === role).map((g) => g.options)
  const cache = { cacheSize: 7, negativeCacheSize: 5, recheckInterval: 2000, maxStale: 0 }
  t.same(byRole('users').map(withoutPool), [{ migrate: false, ...cache }])
  t.same(byRole('tokens').map(withoutPool), [{ migrate: false, ...cache, lastUsedFlushInterval: 500 }])
  const pool = byRole('users')[0]!.pool as pg.Pool
  t.equal(byRole('tokens')[0]!.pool, pool, 'users and keys share the server\'s pool')
  t.same([pool.options.max, pool.options.connectionTimeoutMillis, await statementTimeoutOf(pool)], [3, 4321, '1234ms'], 'pool_size, connect_timeout, statement_timeout')
  // The session and lockout stores the file places: each its own store, with its own options.
  t.same(byRole('sessions'), [{ url, poolSize: 1, sweepInterval: 0, statementTimeout: 2500, migrate: false }])
  t.same(byRole('lockout'), [{ url, poolSize: 2, sweepBatch: 13, connectTimeout: 3000, migrate: false }])
  t.equal(await stop(), 0)
})

test('the config file: a store option where it does not apply, in camelCase, unknown or out of range is one line naming its path', async (t) => {
  const PG = "'postgres://gate:s3cret-pw@127.0.0.1:1/app'"
  const cases: Array<[string, string]> = [
    [`server_app:\n  store: { postgres: ${PG}, maxStale: 0 }\n`, 'server_app.store.maxStale: unknown option (config files use snake_case: max_stale)'],
    [`server_app:\n  store: { postgres: ${PG}, pool_max: 3 }\n`, 'server_app.store.pool_max: unknown option'],
    [`server_app:\n  store: { postgres: ${PG}, pool_size: 0 }\n`, 'server_app.store.pool_size: expected a whole number from 1 to 1000'],
    [`server_app:\n  store: { postgres: ${PG}, max_stale: -1 }\n`, 'server_app.store.max_stale: expected a whole number from 0 to 86400000'],
    [`middleware:\n  session:\n    store: { postgres: ${PG}, max_stale: 0 }\n`, 'middleware.session.store.max_stale: applies to the user and API-key stores: set it on server_app.store'],
    [`server_app:\n  login:\n    store: { postgres: ${PG}, last_used_flush_interval: 10 }\n`, 'server_app.login.store.last_used_flush_interval: applies to the user and API-key stores: set it on server_app.store'],
    [`server_app:\n  login:\n    store: { postgres: ${PG}, sweep_batch: 'many' }\n`, 'server_app.login.store.sweep_batch: expected a whole number from 1 to 100000']
  ]
  const dir = t.testdir(Object.fromEntries(cases.map(([yaml], i) => [`case${i}.yaml`, yaml])))
  for (const [i, [, message]] of cases.entries()) {
    const res = await gatehouse(['serve', '--config', `case${i}.yaml`, '--port', '0'], { cwd: dir, env: {}, cleanEnv: true })
    t.equal(res.code, 1, message)
    t.equal(res.stderr, `gatehouse: ${dir}/case${i}.yaml: ${message}\n`)
    t.notMatch(res.stderr, /s3cret-pw/)
  }
})
