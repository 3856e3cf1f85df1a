// `gatehouse users …` and `gatehouse keys …` against PostgreSQL (--database,
// $GATEHOUSE_DATABASE_URL, --config), and what they change reaching a
// running server (the stores' change notifications). Each test on a
// database of its own; most runs through runCli in this process.
import { test, type Test } from 'tap'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { migrate } from '@fastify-gatehouse/postgres'
import { AppServer } from '@fastify-gatehouse/server'
import { needPostgres, testDatabase } from '../../postgres/test/helpers/postgres.js'
import { collect, stopChild, waitForOutput } from '../../../test-helpers/child.js'
import { hangSignal, waitUntil } from '../../../test-helpers/wait.js'
import { gatehouse, type RunOptions } from './helpers/cli.js'

const postgres = await needPostgres()
const FIXTURE = fileURLToPath(new URL('./fixtures/gatehouse.ts', import.meta.url))

/** A migrated database of the test's own (schema and prefix as given), dropped at the end. */
async function database (t: Test, names: { schema?: string, tablePrefix?: string } = {}): Promise<{ url: string, query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<R[]> }> {
  const db = await testDatabase()
  await migrate({ url: db.url, ...names })
  const pool = new pg.Pool({ connectionString: db.url, max: 2 })
  pool.on('error', () => {})
  t.teardown(async () => { await pool.end(); await db.drop() })
  return { url: db.url, query: async (text, values) => (await pool.query(text, values)).rows }
}

/** This process's environment without any GATEHOUSE_* variable (a child's own). */
function withoutGatehouseVariables (more: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEHOUSE_') || name.startsWith('GATEHOUSE_TEST'))), ...more }
}

// Nothing from this process's environment but what is given.
const cli = async (args: string[], options: RunOptions = {}) => await gatehouse(args, { cleanEnv: true, env: {}, ...options, ...(options.env === undefined ? {} : { env: options.env }) })

test('users: add, list, passwd, disable, enable, delete with --database', postgres, async (t) => {
  const db = await database(t)
  const flag = ['--database', db.url]
  const added = await cli(['users', 'add', 'alice', '--tags', 'ops,dev', ...flag], { stdin: 'wonderland-pw\n' })
  t.equal(added.code, 0, added.stderr)
  t.equal(added.stderr, 'Added alice with tags ops,dev.\n', 'no "created a new store" line: nothing is created in PostgreSQL')
  t.equal((await cli(['users', 'add', 'alice', ...flag], { stdin: 'another-one\n' })).code, 1, 'an existing identity')
  const listed = await cli(['users', 'list', '--json', ...flag])
  t.equal(listed.code, 0)
  t.match(JSON.parse(listed.stdout), [{ identity: 'alice', tags: ['ops', 'dev'], enabled: true }])
  t.notMatch(listed.stdout, /scrypt|passwordHash/, 'never the hash')
  const before = (await db.query<{ password_hash: string }>('select password_hash from gatehouse.users'))[0]!.password_hash
  t.equal((await cli(['users', 'passwd', 'alice', ...flag], { stdin: 'new-password\n' })).code, 0)
  t.not((await db.query<{ password_hash: string }>('select password_hash from gatehouse.users'))[0]!.password_hash, before, 'a new hash')
  t.equal((await cli(['users', 'disable', 'alice', ...flag])).stderr, 'Disabled alice.\nEnded 0 sessions of alice.\n', 'and its sessions in the database end (none here)')
  t.same(await db.query('select enabled from gatehouse.users'), [{ enabled: false }])
  t.equal((await cli(['users', 'enable', 'alice', ...flag])).code, 0)
  t.equal((await cli(['users', 'passwd', 'bob', ...flag], { stdin: 'x-password\n' })).stderr, 'gatehouse: no user bob\n')
  t.equal((await cli(['users', 'delete', 'alice', ...flag])).stderr, 'Deleted alice.\nEnded 0 sessions of alice.\n')
  t.same(await db.query('select 1 from gatehouse.users'), [])
  const table = await cli(['users', 'list', ...flag])
  t.equal(table.stdout, 'IDENTITY  TAGS  STATUS  UPDATED\n', 'an empty table, not an error: the tables exist')
})

test('keys: issue, list, revoke, delete with $GATEHOUSE_DATABASE_URL, in a schema and prefix of their own', postgres, async (t) => {
  const db = await database(t, { schema: 'auth', tablePrefix: 'gh_' })
  const env = { GATEHOUSE_DATABASE_URL: db.url }
  const names = ['--schema', 'auth', '--table-prefix', 'gh_']
  const issued = await cli(['keys', 'issue', '--label', 'ci', '--tags', 'deploy', '--expires', '30d', ...names], { env })
  t.equal(issued.code, 0, issued.stderr)
  const key = issued.stdout.trim()
  t.match(key, /^gak_[0-9a-f]{16}_/)
  const keyId = key.slice(4, 20)
  const rows = await db.query<{ key_id: string, label: string }>('select * from auth.gh_api_keys')
  t.match(rows, [{ key_id: keyId, label: 'ci' }])
  t.notOk(JSON.stringify(rows).includes(key.slice(21)), 'the secret is not stored')
  const listed = await cli(['keys', 'list', '--json', ...names], { env })
  t.match(JSON.parse(listed.stdout), [{ keyId, label: 'ci', tags: ['deploy'], enabled: true }])
  t.notOk(listed.stdout.includes(key.slice(21)), 'list never shows a secret')
  t.equal((await cli(['keys', 'revoke', keyId, ...names], { env })).stderr, `Revoked key ${keyId}.\n`)
  t.match((await cli(['keys', 'list', ...names], { env })).stdout, /revoked/)
  t.equal((await cli(['keys', 'delete', keyId, ...names], { env })).code, 0)
  t.equal((await cli(['keys', 'delete', keyId, ...names], { env })).stderr, `gatehouse: no key ${keyId}\n`)
  const elsewhere = await cli(['keys', 'list'], { env })
  t.equal(elsewhere.code, 1, 'the default schema of that database was never migrated')
  t.match(elsewhere.stderr, /^gatehouse: the Gatehouse schema in .* is behind this version .*gatehouse migrate up --database/)
})

test('--config reads server_app.store: a PostgreSQL store, or a folder', postgres, async (t) => {
  const db = await database(t, { schema: 'app' })
  const dir = t.testdir({
    'pg.yaml': `server_app:\n  store: { postgres: '${db.url}', schema: app }\n`,
    'folder.yaml': 'server_app:\n  store: ./data\n',
    'none.yaml': 'server:\n  port: 8000\n'
  })
  const added = await cli(['users', 'add', 'carol', '--config', 'pg.yaml'], { cwd: dir, stdin: 'rabbit-hole-pw\n' })
  t.equal(added.code, 0, added.stderr)
  t.same((await db.query('select identity from app.users')), [{ identity: 'carol' }])
  t.equal((await cli(['keys', 'issue', '--label', 'x', '--config', 'folder.yaml'], { cwd: dir })).code, 0)
  t.match((await cli(['keys', 'list', '--config', 'folder.yaml'], { cwd: dir })).stdout, / x /, 'the folder relative to the file')
  const none = await cli(['users', 'list', '--config', 'none.yaml'], { cwd: dir })
  t.equal(none.code, 1)
  t.match(none.stderr, /none\.yaml: server_app\.store: not set/)
})

test('store flags: two at once, --schema without --database, both variables: usage errors (exit 2) before anything opens', async (t) => {
  const url = 'postgres://gate:s3cret-pw@127.0.0.1:1/app'
  for (const [args, env, message] of [
    [['users', 'list', '--store', 'x', '--database', url], {}, /give one of --store, --database and --config, not --store and --database/],
    [['keys', 'list', '--config', 'x.yaml', '--database', url], {}, /not --database and --config/],
    [['users', 'list', '--store', 'x', '--schema', 'auth'], {}, /--schema and --table-prefix go with --database, not --store/],
    [['keys', 'list', '--table-prefix', 'gh_'], {}, /--schema and --table-prefix go with --database/],
    [['users', 'list'], { GATEHOUSE_STORE: '/tmp/x', GATEHOUSE_DATABASE_URL: url }, /both \$GATEHOUSE_STORE and \$GATEHOUSE_DATABASE_URL are set/],
    [['users', 'hash', '--database', url], {}, /users hash takes no option/]
  ] as Array<[string[], Record<string, string>, RegExp]>) {
    const res = await cli(args, { env, stdin: 'a-password\n' })
    t.equal(res.code, 2, args.join(' '))
    t.match(res.stderr, message)
    t.notMatch(res.stderr, /s3cret-pw/)
  }
  const flagWins = await cli(['users', 'list', '--database', url], { env: { GATEHOUSE_STORE: '/tmp/x' } })
  t.equal(flagWins.code, 1, 'a flag settles it: the variables are not looked at')
  t.match(flagWins.stderr, /^gatehouse: PostgresUserStore cannot reach PostgreSQL at 127\.0\.0\.1:1\/app: /)
  t.notMatch(flagWins.stderr, /s3cret-pw/)
  const badUrl = await cli(['keys', 'list', '--database', 'redis://127.0.0.1/0'])
  t.equal(badUrl.code, 1)
  t.equal(badUrl.stderr, 'gatehouse: --database: unsupported scheme "redis:" (expected postgres: or postgresql:)\n')
})

test('parallel CLI writers: a dozen `users add` and `keys issue` at once, every one stored', postgres, async (t) => {
  const db = await database(t)
  const flag = ['--database', db.url]
  const runs = await Promise.all([
    ...Array.from({ length: 12 }, (_, i) => cli(['users', 'add', `user${i}`, ...flag], { stdin: `password-${i}\n` })),
    ...Array.from({ length: 12 }, (_, i) => cli(['keys', 'issue', '--label', `key${i}`, ...flag]))
  ])
  t.same(runs.map((r) => r.code), runs.map(() => 0), runs.map((r) => r.stderr).join(''))
  t.equal((await db.query('select 1 from gatehouse.users')).length, 12)
  t.equal((await db.query('select 1 from gatehouse.api_keys')).length, 12)
})

test('what the CLI changes reaches a running server: a user disabled, a key issued and revoked (another process)', postgres, async (t) => {
  const db = await database(t)
  const server = new AppServer({ logger: false, database: db.url })
  server.register(async (app) => {
    app.get('/whoami', { config: { authRule: 'member' } }, async (request) => request.scope.auth)
  })
  t.teardown(() => server.close())
  const base = await server.serve('127.0.0.1', 0)
  const flag = ['--database', db.url]
  t.equal((await cli(['users', 'add', 'alice', '--tags', 'member', ...flag], { stdin: 'wonderland-pw\n' })).code, 0)
  const signedIn = await fetch(`${base}/_server/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'alice', password: 'wonderland-pw' }), signal: hangSignal()
  })
  t.equal(signedIn.status, 200, 'a user added by the CLI signs in')
  const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!
  const asAlice = async () => (await fetch(`${base}/whoami`, { headers: { cookie }, signal: hangSignal() })).status
  t.equal(await asAlice(), 200)

  // Another process: its own pool, its own connection; the server hears of it through NOTIFY.
  const disabled = await gatehouse(['users', 'disable', 'alice', ...flag], { process: true, env: { GATEHOUSE_DATABASE_URL: '' } })
  t.equal(disabled.code, 0, disabled.stderr)
  const ended = await waitUntil(async () => await asAlice() !== 200, { what: 'the session of the user the CLI disabled to end' })
  t.equal(await asAlice(), 403, `the session opens nothing ${ended} ms after the CLI disabled the user`)

  const issued = await cli(['keys', 'issue', '--label', 'ci', '--tags', 'member', ...flag])
  const key = issued.stdout.trim()
  const withKey = async () => (await fetch(`${base}/whoami`, { headers: { authorization: `Bearer ${key}` }, signal: hangSignal() })).status
  await waitUntil(async () => await withKey() === 200, { what: 'the key the CLI issued to be accepted' })
  t.equal(await withKey(), 200)
  t.equal((await cli(['keys', 'revoke', key.slice(4, 20), ...flag])).code, 0)
  const refused = await waitUntil(async () => await withKey() === 401, { what: 'the key the CLI revoked to be refused' })
  t.pass(`refused ${refused} ms after the CLI revoked it`)
})

test('gatehouse serve --migrate with $GATEHOUSE_DATABASE_URL (a child process): users, keys and sessions in PostgreSQL; SIGTERM, and the process exits by itself', postgres, async (t) => {
  const db = await testDatabase()
  const pool = new pg.Pool({ connectionString: db.url, max: 1 })
  pool.on('error', () => {})
  t.teardown(async () => { await pool.end(); await db.drop() })
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE, 'serve', '--migrate', '--port', '0'], {
    env: withoutGatehouseVariables({ GATEHOUSE_DATABASE_URL: db.url, GATEHOUSE_ADMIN_PASSWORD: 'gatekeeper-pass-1' })
  })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const base = (await waitForOutput(child, output, /serving at (http:\/\/127\.0\.0\.1:\d+)\//, { what: 'the "serving at" line' }))[1]!
  // The schema was migrated by the serve: the CLI can now write.
  t.equal((await cli(['users', 'add', 'alice', '--tags', 'member', '--database', db.url], { stdin: 'wonderland-pw\n' })).code, 0)
  const signedIn = await fetch(`${base}/_server/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'alice', password: 'wonderland-pw' }), signal: hangSignal()
  })
  t.equal(signedIn.status, 200, 'a user added by the CLI signs in to the served process')
  t.same((await pool.query('select record->>\'identity\' as identity from gatehouse.sessions')).rows, [{ identity: 'alice' }], 'the session is a row')
  t.same((await pool.query<{ identity: string }>('select identity from gatehouse.users order by identity')).rows.map((r) => r.identity), ['admin', 'alice'], 'the admin from $GATEHOUSE_ADMIN_PASSWORD')
  t.equal(await stopChild(child, 'SIGTERM'), 0, 'exits by itself: every pool closed')
  t.notMatch(output.all(), /gatekeeper-pass-1/)
})

test('gatehouse serve: users in a folder, sessions and lockout counters in PostgreSQL from the config file (a child process)', postgres, async (t) => {
  const db = await testDatabase()
  const pool = new pg.Pool({ connectionString: db.url, max: 1 })
  pool.on('error', () => {})
  t.teardown(async () => { await pool.end(); await db.drop() })
  const dir = t.testdir({
    'gatehouse.yaml': `middleware:
  session:
    store: { postgres: '${db.url}', migrate: true }
server_app:
  store: ./data
  login:
    max_attempts: 2
    store: { postgres: '${db.url}', schema: locks, table_prefix: gh_, migrate: true }
`
  })
  t.equal((await cli(['users', 'add', 'alice', '--store', 'data'], { cwd: dir, stdin: 'wonderland-pw\n' })).code, 0)
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE, 'serve', '--config', 'gatehouse.yaml', '--port', '0'], {
    cwd: dir, env: withoutGatehouseVariables()
  })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const base = (await waitForOutput(child, output, /serving at (http:\/\/127\.0\.0\.1:\d+)\//, { what: 'the "serving at" line' }))[1]!
  const post = async (password: string) => await fetch(`${base}/_server/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'alice', password }), signal: hangSignal()
  })
  t.equal((await post('wonderland-pw')).status, 200)
  t.same((await pool.query('select record->>\'identity\' as identity from gatehouse.sessions')).rows, [{ identity: 'alice' }], 'the session is a row')
  t.equal((await post('wrong')).status, 401)
  t.ok((await pool.query('select 1 from locks.gh_lockout')).rowCount! > 0, 'the lockout counters are rows, in their own schema and prefix')
  t.same((await pool.query("select 1 from information_schema.tables where table_schema = 'gatehouse' and table_name = 'users'")).rows.length, 1, 'the session store migrated its schema on start')
  t.equal((await pool.query('select 1 from gatehouse.users')).rowCount, 0, 'users stay in the folder')
  t.equal(await stopChild(child, 'SIGTERM'), 0, 'exits by itself: both pools closed')
})

test('gatehouse serve: a schema that is behind stops the boot naming the command; --migrate migrates', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  const behind = await cli(['serve', '--database', db.url, '--port', '0'])
  t.equal(behind.code, 1)
  t.match(behind.stderr, /^gatehouse: the Gatehouse schema in 127\.0\.0\.1:\d+\/\w+ \(schema gatehouse\) is behind this version \(pending: .*\); run `gatehouse migrate up --database <url>`/)
  const usage = await cli(['serve', '--migrate', '--port', '0'])
  t.equal(usage.code, 2, '--migrate without a database')
  const dir = t.testdir({ 'gatehouse.yaml': `server_app:\n  store: { postgres: '${db.url}' }\n` })
  const both = await cli(['serve', '--config', 'gatehouse.yaml', '--database', db.url], { cwd: dir })
  t.equal(both.code, 2, '--database and server_app.store at once')
  t.match(both.stderr, /--database and the config file's server_app\.store both name the users' store/)
  const none = await cli(['serve', '--port', '0'])
  t.equal(none.code, 2)
  t.match(none.stderr, /give --config <file>, or a database/)
})
