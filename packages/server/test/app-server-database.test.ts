// AppServer's `database` option: users, API keys, sessions and lockout
// counters in PostgreSQL, opened at boot and closed by close(). Each test
// on a database of its own.
import { test, type Test } from 'tap'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { MemoryLockoutStore, MemoryUserStore } from '@fastify-gatehouse/auth'
import { migrationNames, migrationStatusOf } from '@fastify-gatehouse/postgres'
import { MemorySessionStore } from '@fastify-gatehouse/session'
import { AppServer, SUPERADMIN, type AppServerOptions } from '@fastify-gatehouse/server'
import { needPostgres, testDatabase, type TestDatabase } from '../../postgres/test/helpers/postgres.js'
import { collect, waitForOutput } from '../../../test-helpers/child.js'
import { HANG_CEILING_MS, hangSignal, UNHURRIED_CALLBACK_TIMEOUT_S, waitUntil } from '../../../test-helpers/wait.js'

const postgres = await needPostgres()
const FIXTURE = fileURLToPath(new URL('./fixtures/database-server.ts', import.meta.url))

/** A database of the test's own, dropped at the end, and a pool to look into it. */
async function database (t: Test): Promise<TestDatabase & { query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<R[]> }> {
  const db = await testDatabase()
  const pool = new pg.Pool({ connectionString: db.url, max: 2 })
  pool.on('error', () => {})
  t.teardown(async () => { await pool.end(); await db.drop() })
  return { ...db, query: async (text, values) => (await pool.query(text, values)).rows }
}

/** Connections Gatehouse's pools hold to `db` (application_name 'gatehouse'). */
async function gatehouseConnections (db: Awaited<ReturnType<typeof database>>): Promise<number> {
  const [row] = await db.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = 'gatehouse'", [db.name])
  return row!.n
}

async function allClosed (t: Test, db: Awaited<ReturnType<typeof database>>, what: string): Promise<void> {
  const waited = await waitUntil(async () => await gatehouseConnections(db) === 0, { what: `${what}: every pool ended` })
  t.pass(`${what}: no connection left (${waited} ms)`)
}

const json = (method: string, body: unknown, cookie?: string): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...(cookie === undefined ? {} : { cookie }) },
  body: JSON.stringify(body),
  signal: hangSignal()
})

async function login (base: string, identity: string, password: string): Promise<{ status: number, cookie: string | undefined, retryAfter: string | null }> {
  const res = await fetch(`${base}/_server/login`, json('POST', { identity, password }))
  const line = res.headers.getSetCookie().find((l) => l.startsWith('session_id='))
  return { status: res.status, cookie: line?.split(';')[0], retryAfter: res.headers.get('retry-after') }
}

function whoami (app: FastifyInstance): void {
  app.get('/whoami', { config: { authRule: 'member' } }, async (request) => request.scope.auth)
}

async function start (t: Test, options: AppServerOptions): Promise<{ server: AppServer, base: string }> {
  const server = new AppServer({ logger: false, ...options })
  server.register(async (app) => { whoami(app) })
  t.teardown(() => server.close())
  return { server, base: await server.serve('127.0.0.1', 0) }
}

test('a schema that is behind: ready() and serve() reject naming the command, nothing is created, no pool is left', postgres, async (t) => {
  const db = await database(t)
  const server = new AppServer({ logger: false, database: db.url })
  await t.rejects(server.ready(), {
    code: 'GATEHOUSE_POSTGRES_SCHEMA_BEHIND',
    message: /pending: .*run `gatehouse migrate up --database <url>`, or let the server migrate on start/
  })
  await t.rejects(server.serve('127.0.0.1', 0), { code: 'GATEHOUSE_POSTGRES_SCHEMA_BEHIND' })
  t.same((await migrationStatusOf({ url: db.url })).applied, [], 'nothing migrated')
  await allClosed(t, db, 'a failed boot')
  await server.close()
})

test('migrate: true brings the schema up to date at boot and serves', postgres, async (t) => {
  const db = await database(t)
  const server = new AppServer({ logger: false, database: { url: db.url, schema: 'auth', tablePrefix: 'gh_', migrate: true } })
  await server.ready()
  t.same(await migrationStatusOf({ url: db.url, schema: 'auth', tablePrefix: 'gh_' }), { applied: migrationNames, pending: [], unknown: [] })
  t.ok(await gatehouseConnections(db) > 0, 'the stores hold connections while the server runs')
  await server.close()
  await allClosed(t, db, 'close()')
})

test('bad database options are boot errors naming the option, never the password', async (t) => {
  const cases: Array<[unknown, Record<string, unknown>, RegExp]> = [
    ['mysql://gate:s3cret-pw@127.0.0.1/app', {}, /^database: unsupported scheme "mysql:"/],
    [{ url: 'http://gate:s3cret-pw@127.0.0.1/app' }, {}, /^database\.url: unsupported scheme "http:"/],
    [{ url: 'postgres://127.0.0.1/app', schema: 'Bad-Name' }, {}, /^database\.schema: expected a schema name/],
    [{ url: 'postgres://127.0.0.1/app', tablePrefix: '1x' }, {}, /^database\.tablePrefix: expected "" or lower-case/],
    [{ url: 'postgres://127.0.0.1/app', migrate: 'yes' }, {}, /^database\.migrate: expected true or false/],
    [{ url: 'postgres://127.0.0.1/app', cachesize: 3 }, {}, /^database\.cachesize: unknown option \(known: url, pool, schema/],
    [{ schema: 'auth' }, {}, /^database: give exactly one of url and pool/],
    [{ url: 'postgres://127.0.0.1/app' }, { users: { alice: { password: 'wonderland-pw' } } }, /^users: seeded users would live in memory beside database; .*gatehouse users add --database/],
    [{ url: 'postgres://127.0.0.1/app' }, { tokens: { ci: { key: `gak_${'a'.repeat(16)}_${'b'.repeat(43)}` } } }, /^tokens: seeded tokens would live in memory beside database; .*gatehouse keys issue --database/]
  ]
  for (const [database, more, message] of cases) {
    const server = new AppServer({ logger: false, database: database as string, ...more })
    const err = await server.ready().then(() => undefined, (e: Error & { code?: string }) => e)
    t.match(err, { code: /_INVALID_OPTIONS$/, message }, JSON.stringify(database))
    t.notMatch(err?.message, /s3cret-pw/)
    await server.close()
  }
  const typed = new AppServer({ logger: false, database: 42 as never })
  await t.rejects(typed.ready(), { code: /INVALID_OPTIONS$/, message: /database/ }, 'neither a string nor an object')
})

test('an unreachable database: GATEHOUSE_POSTGRES_CONNECT naming host:port/database, never the password', async (t) => {
  const server = new AppServer({ logger: false, database: { url: 'postgres://gate:s3cret-pw@127.0.0.1:1/somedb', connectTimeout: 5000 } })
  const err = await server.ready().then(() => undefined, (e: Error) => e)
  t.match(err, { code: 'GATEHOUSE_POSTGRES_CONNECT', message: /127\.0\.0\.1:1\/somedb/ })
  t.notMatch(err?.message, /s3cret-pw/)
  await server.close()
})

test('the whole flow through real sockets: the admin adds a user and a key, the user signs in and out, the key calls, lockout counts', postgres, async (t) => {
  const db = await database(t)
  const { server, base } = await start(t, { database: { url: db.url, migrate: true }, adminPassword: 'gatekeeper-pass-1', serverApp: { login: { maxAttempts: 3, backoff: 30 } } })

  const admin = await login(base, 'admin', 'gatekeeper-pass-1')
  t.equal(admin.status, 200, 'the admin was created in PostgreSQL at boot')
  const added = await fetch(`${base}/_server/users`, json('POST', { identity: 'alice', password: 'wonderland-pw', tags: ['member'] }, admin.cookie))
  t.equal(added.status, 201)
  const issued = await fetch(`${base}/_server/tokens`, json('POST', { label: 'ci', tags: ['member'] }, admin.cookie))
  t.equal(issued.status, 201)
  const { key } = await issued.json() as { key: string }

  const [userRow] = await db.query<{ tags: string[], password_hash: string }>('select tags, password_hash from gatehouse.users where identity = $1', ['alice'])
  t.same(userRow?.tags, ['member'])
  t.match(userRow?.password_hash, /^scrypt\$/, 'the password is stored as a scrypt hash')
  t.equal((await db.query('select 1 from gatehouse.api_keys where label = $1', ['ci'])).length, 1)
  t.notOk(JSON.stringify(await db.query('select * from gatehouse.api_keys')).includes(key.slice(21)), 'the key\'s secret is not stored')

  const alice = await login(base, 'alice', 'wonderland-pw')
  t.equal(alice.status, 200)
  const sessionsBefore = (await db.query('select 1 from gatehouse.sessions')).length
  t.equal(sessionsBefore, 2, 'the admin\'s and alice\'s sessions are rows')
  const me = await fetch(`${base}/whoami`, { headers: { cookie: alice.cookie! }, signal: hangSignal() })
  t.same(await me.json(), { identity: 'alice', tags: ['member'], backend: 'session' })
  const bearer = await fetch(`${base}/whoami`, { headers: { authorization: `Bearer ${key}` }, signal: hangSignal() })
  t.equal(bearer.status, 200)
  t.match(await bearer.json(), { identity: 'ci', tags: ['member'], backend: 'api_key' })

  const out = await fetch(`${base}/_server/logout`, { method: 'POST', headers: { cookie: alice.cookie! }, signal: hangSignal() })
  t.equal(out.status, 200)
  t.equal((await fetch(`${base}/whoami`, { headers: { cookie: alice.cookie! }, signal: hangSignal() })).status, 403, 'signed out: the old cookie opens nothing')
  t.equal((await db.query('select 1 from gatehouse.sessions')).length, sessionsBefore - 1, 'the session row is gone')

  for (let i = 0; i < 3; i++) t.equal((await login(base, 'alice', 'wrong')).status, 401)
  const locked = await login(base, 'alice', 'wonderland-pw')
  t.equal(locked.status, 429, 'the lockout counters live in PostgreSQL')
  t.ok((await db.query('select 1 from gatehouse.lockout')).length > 0)

  await server.close()
  await allClosed(t, db, 'close()')
})

test('an API key expiry past year 9999 (UTC) is a 400 naming it, not the database\'s 500', postgres, async (t) => {
  const db = await database(t)
  const { base } = await start(t, { database: { url: db.url, migrate: true }, adminPassword: 'gatekeeper-pass-1' })
  const admin = await login(base, 'admin', 'gatekeeper-pass-1')
  const late = await fetch(`${base}/_server/tokens`, json('POST', { label: 'late', expiresAt: '9999-12-31T23:00:00-05:00' }, admin.cookie))
  t.equal(late.status, 400)
  t.match(late.headers.get('content-type'), /^application\/json/)
  t.match(await late.json(), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: 'expiresAt must be a date in the future, before year 10000 (UTC)' })
  const last = await fetch(`${base}/_server/tokens`, json('POST', { label: 'last', expiresAt: '9999-12-31T23:59:59.999Z' }, admin.cookie))
  t.equal(last.status, 201, 'the last millisecond of 9999 is stored')
  t.same(await db.query('select label from gatehouse.api_keys'), [{ label: 'last' }])
})

test('lockout on PostgreSQL with the largest options allowed: logins are counted, never a database error', postgres, async (t) => {
  const db = await database(t)
  const largest = { maxAttempts: 1_000_000, backoff: 86_400, resetAfter: 31_536_000 }
  const { base } = await start(t, { database: { url: db.url, migrate: true }, adminPassword: 'gatekeeper-pass-1', serverApp: { login: largest } })
  for (let i = 0; i < 3; i++) t.equal((await login(base, 'admin', 'wrong-password')).status, 401, `failure ${i + 1}: counted, not locked`)
  const [row] = await db.query<{ failures: number }>('select failures from gatehouse.lockout where key = $1', ['identity:admin'])
  t.equal(row?.failures, 3, 'the identity\'s failures are in the lockout table')
  t.equal((await login(base, 'admin', 'gatekeeper-pass-1')).status, 200, 'the right password still signs in')
  t.same(await db.query('select key from gatehouse.lockout where key = $1', ['identity:admin']), [], 'and resets the identity')
})

test('database: { pool }: the stores share a pool of yours, which close() leaves open', postgres, async (t) => {
  const db = await database(t)
  const pool = new pg.Pool({ connectionString: db.url, max: 8, application_name: 'mine' })
  pool.on('error', () => {})
  t.teardown(() => pool.end())
  const { server, base } = await start(t, { database: { pool, migrate: true }, adminPassword: 'gatekeeper-pass-1' })
  t.equal((await login(base, 'admin', 'gatekeeper-pass-1')).status, 200)
  t.equal((await db.query('select 1 from gatehouse.sessions')).length, 1)
  await server.close()
  t.equal((await pool.query('select 1 as one')).rows[0].one, 1, 'the pool still answers')
})

test('stores given explicitly keep their role; database fills the rest', postgres, async (t) => {
  const db = await database(t)
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('root', { password: 'root-password', tags: [SUPERADMIN, 'member'] })
  const { base } = await start(t, {
    database: { url: db.url, migrate: true },
    users,
    session: { store: new MemorySessionStore() },
    serverApp: { login: { store: new MemoryLockoutStore() } }
  })
  const root = await login(base, 'root', 'root-password')
  t.equal(root.status, 200)
  t.equal((await db.query('select 1 from gatehouse.users')).length, 0, 'users stay in memory')
  t.equal((await db.query('select 1 from gatehouse.sessions')).length, 0, 'sessions too')
  const issued = await fetch(`${base}/_server/tokens`, json('POST', { label: 'ci', tags: ['member'] }, root.cookie))
  t.equal(issued.status, 201)
  t.equal((await db.query('select 1 from gatehouse.api_keys')).length, 1, 'the keys are in PostgreSQL')
  await login(base, 'root', 'wrong')
  t.equal((await db.query('select 1 from gatehouse.lockout')).length, 0, 'the lockout counters in memory')
})

test('two instances on one database: booted together (migrating once, one admin), sessions and user changes shared', postgres, async (t) => {
  const db = await database(t)
  // A dozen password hashes at once: on a loaded machine they queue for
  // scrypt past the 5 s default time limit, which is not what this tests.
  const options = { database: { url: db.url, migrate: true }, adminPassword: 'gatekeeper-pass-1', serverApp: { login: { callbackTimeout: UNHURRIED_CALLBACK_TIMEOUT_S } } }
  const [one, two] = await Promise.all([start(t, options), start(t, options)])
  t.same((await db.query<{ identity: string }>('select identity from gatehouse.users')).map((r) => r.identity), ['admin'], 'one admin')

  const admin = await login(one.base, 'admin', 'gatekeeper-pass-1')
  // A dozen users added at once through both instances' admin APIs, then
  // each signs in on the other (one sign-in per identity: the lockout
  // claims an attempt before checking it, so parallel tries of one identity
  // are limited on purpose).
  const names = Array.from({ length: 12 }, (_, i) => `user${i}`)
  const added = await Promise.all(names.map((identity, i) =>
    fetch(`${(i % 2 === 0 ? one : two).base}/_server/users`, json('POST', { identity, password: `secret-number-${i}`, tags: ['member'] }, admin.cookie))))
  t.same(added.map((r) => r.status), names.map(() => 201))
  const logins = await Promise.all(names.map((identity, i) => login((i % 2 === 0 ? two : one).base, identity, `secret-number-${i}`)))
  t.same(logins.map((l) => l.status), names.map(() => 200), 'each user signs in on the instance that did not add it')
  t.equal((await db.query('select 1 from gatehouse.sessions where record->>\'identity\' like $1', ['user%'])).length, names.length, 'one row per session')
  const cookie = logins[0]!.cookie!
  const onOne = async () => (await fetch(`${one.base}/whoami`, { headers: { cookie }, signal: hangSignal() })).status
  t.equal(await onOne(), 200, 'a session made on two is good on one')

  const disabled = await fetch(`${two.base}/_server/users/user0`, json('PATCH', { enabled: false }, admin.cookie))
  t.equal(disabled.status, 200, 'the admin\'s session, made on one, works on two')
  const ended = await waitUntil(async () => await onOne() !== 200, { what: 'the disabled user\'s session to end on the other instance' })
  t.equal(await onOne(), 403, `disabled on two, the session opens nothing on one (${ended} ms)`)
  t.equal((await login(one.base, 'user0', 'secret-number-0')).status, 401, 'and the user cannot sign in there')
})

test('a process that serves on PostgreSQL and calls close() exits by itself (no handle left open)', postgres, async (t) => {
  const db = await database(t)
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE, db.url], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  await waitForOutput(child, output, /^closed$/m, { what: 'the fixture to close its server' })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const ceiling = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), HANG_CEILING_MS).unref())
  const code = child.exitCode ?? await Promise.race([exited, ceiling])
  t.equal(code, 0, `the process ended on its own after close() (${output.stderr()})`)
  t.match(output.stdout(), /^signed in: 200$/m)
})
