// `gatehouse users sessions|signout`, and disable/delete/passwd ending the
// user's sessions in the servers' shared session store: Redis (from a
// config file) and PostgreSQL (--database, or a config file's server_app.store).
// D-CLI-16.
import { test, type Test } from 'tap'
import { join } from 'node:path'
import { FileUserStore } from '@fastify-gatehouse/files'
import { migrate, PostgresSessionStore } from '@fastify-gatehouse/postgres'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import type { SessionStore } from '@fastify-gatehouse/session'
import { AppServer } from '@fastify-gatehouse/server'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from '../../redis/test/helpers/redis.js'
import { needPostgres, testDatabase } from '../../postgres/test/helpers/postgres.js'
import { FAST, fetchSignIn, whoIs } from './helpers/account.js'
import { gatehouse, type RunOptions } from './helpers/cli.js'
import { hangSignal, waitUntil } from '../../../test-helpers/wait.js'

const redis = await needRedis()
const postgres = await needPostgres()

// Nothing from this process's environment but what is given.
const cli = async (args: string[], options: RunOptions = {}) => await gatehouse(args, { cleanEnv: true, env: {}, ...options })
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'

/** A server on a real port: users in `dir/data/users.json` (alice/alice-pass, bob/bob-pass-1), sessions in `sessions`. */
async function serve (t: Test, dir: string, sessions: SessionStore): Promise<{ base: string, users: FileUserStore }> {
  const users = await FileUserStore.open(join(dir, 'data', 'users.json'), { scrypt: FAST })
  if (await users.get('alice') === null) {
    await users.add('alice', { password: 'alice-pass', tags: 'member' })
    await users.add('bob', { password: 'bob-pass-1', tags: 'member' })
  }
  const server = new AppServer({ logger: false, users, session: { store: sessions } })
  server.register(async (app) => { app.get('/whoami', async (request) => ({ auth: request.scope.auth })) })
  const base = await server.serve('127.0.0.1', 0)
  t.teardown(() => server.close())
  return { base, users }
}

async function handles (base: string, cookies: readonly string[]): Promise<string[]> {
  return await Promise.all(cookies.map(async (cookie) => {
    const res = await fetch(`${base}/_server/account/me`, { headers: { cookie }, signal: hangSignal() })
    return ((await res.json()) as { session: { handle: string } }).session.handle
  }))
}

test('without a shared session store: one line naming why, exit 1, nothing opened', async (t) => {
  const dir = t.testdir({ 'folder.yaml': 'server_app:\n  store: ./data\n' })
  const runs: Array<[string[], RunOptions]> = [
    [['users', 'sessions', 'alice', '--store', dir], {}],
    [['users', 'signout', 'alice', '--store', dir], {}],
    [['users', 'signout', 'alice'], { env: { GATEHOUSE_STORE: dir } }],
    [['users', 'sessions', 'alice', '--config', 'folder.yaml'], { cwd: dir }],
    [['users', 'sessions', 'alice'], { cwd: dir }]
  ]
  for (const [args, options] of runs) {
    const run = await cli(args, options)
    t.equal(run.code, 1, args.join(' '))
    t.match(run.stderr, /^gatehouse: users (sessions|signout) needs the session store the servers share \(Redis or PostgreSQL\): give --config with middleware\.session\.store or a PostgreSQL server_app\.store, or --database \/ \$GATEHOUSE_DATABASE_URL; [^\n]*\n$/)
    t.equal(run.stdout, '')
  }
  t.equal((await cli(['users', 'sessions', '--store', dir])).code, 2, 'no identity: usage')
  t.equal((await cli(['users', 'signout', 'alice', '--json', '--store', dir])).code, 2, 'signout takes no --json')
  t.equal((await cli(['users', 'sessions', 'alice', '--store', dir, '--database', 'postgres://x@127.0.0.1/x'])).code, 2, 'two stores: usage')
  // A folder store: disable still works and ends nothing here (the servers end the sessions on the next request).
  t.equal((await cli(['users', 'add', 'carol', '--store', dir], { stdin: 'quiet-meadow-5521\n' })).code, 0)
  t.equal((await cli(['users', 'disable', 'carol', '--store', dir])).stderr, 'Disabled carol.\n')
})

test('Redis sessions from a config file: list, sign out, and disable/delete/passwd end the sessions at once', redis, async (t) => {
  const prefix = testPrefix('cli-sess')
  const sessions = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  t.teardown(async () => { await sessions.close(); await cleanPrefix(prefix) })
  const dir = t.testdir({
    'gatehouse.yaml': `server_app:\n  store: ./data\nmiddleware:\n  session:\n    idle_ttl: 1800\n    store: { redis: '${REDIS_URL}', prefix: '${prefix}' }\n`,
    'elsewhere.yaml': 'server_app:\n  store: ./data\nmiddleware:\n  session:\n    store: { redis: \'redis://127.0.0.1:1/0\' }\n',
    data: {}
  })
  const { base, users } = await serve(t, dir, sessions)
  const config = ['--config', 'gatehouse.yaml']
  const alice = [await fetchSignIn(base, 'alice', 'alice-pass', FIREFOX), await fetchSignIn(base, 'alice', 'alice-pass', 'curl/8.5.0')]
  const bob = await fetchSignIn(base, 'bob', 'bob-pass-1')

  const table = await cli(['users', 'sessions', 'alice', ...config], { cwd: dir })
  t.equal(table.code, 0, table.stderr)
  const lines = table.stdout.trimEnd().split('\n')
  t.match(lines[0], /^HANDLE +SIGNED IN +LAST SEEN +EXPIRES +ADDRESS +AGENT +VIA$/)
  t.equal(lines.length, 3, 'two sessions')
  const [mine, curl] = await handles(base, alice)
  t.match(lines[1], new RegExp(`^${curl} .* 127\\.0\\.0\\.1 +curl 8 +password$`), 'newest first')
  t.match(lines[2], new RegExp(`^${mine} .* 127\\.0\\.0\\.1 +Firefox 133 on Linux +password$`))
  for (const cookie of alice) t.notOk(table.stdout.includes(cookie.slice('session_id='.length)), 'never an id')
  const json = await cli(['users', 'sessions', 'alice', '--json', ...config], { cwd: dir })
  const items = JSON.parse(json.stdout) as Array<Record<string, string>>
  t.same(items.map((i) => i.handle), [curl, mine])
  t.same(Object.keys(items[0]!), ['handle', 'signed_in_at', 'last_seen_at', 'expires_at', 'address', 'agent', 'via'])
  t.same(JSON.parse((await cli(['users', 'sessions', 'nobody', '--json', ...config], { cwd: dir })).stdout), [])

  const out = await cli(['users', 'signout', 'alice', ...config], { cwd: dir })
  t.equal(out.code, 0)
  t.equal(out.stderr, 'Signed alice out: 2 sessions ended.\n')
  for (const cookie of alice) t.equal(await whoIs(base, cookie), null, 'anonymous on the server at once')
  t.equal(await whoIs(base, bob), 'bob')
  t.equal((await cli(['users', 'signout', 'alice', ...config], { cwd: dir })).stderr, 'Signed alice out: 0 sessions ended.\n')

  for (const [action, stdin, said] of [['passwd', 'silver-harbor-8812\n', 'Password of alice changed.'], ['disable', '', 'Disabled alice.'], ['delete', '', 'Deleted alice.']] as const) {
    const password = action === 'passwd' ? 'alice-pass' : 'silver-harbor-8812'
    if (action === 'delete') t.equal((await cli(['users', 'enable', 'alice', ...config], { cwd: dir })).code, 0, 'enabled again, to sign in')
    // The server's users.json is another process's view: it sees the CLI's last change within its watchInterval.
    await waitUntil(async () => await users.verify('alice', password) !== null, { what: 'the server to see alice\'s password and standing' })
    const cookie = await fetchSignIn(base, 'alice', password)
    const run = await cli(['users', action, 'alice', ...config], { cwd: dir, stdin })
    t.equal(run.code, 0, action)
    t.equal(run.stderr, `${said}\nEnded 1 session of alice.\n`, action)
    t.same(await sessions.listFor('alice', 10), [], `${action}: gone from Redis at once`)
    t.equal(await whoIs(base, cookie), null)
  }
  t.equal(await whoIs(base, bob), 'bob', 'bob kept his session throughout')

  const unreachable = await cli(['users', 'sessions', 'bob', '--config', 'elsewhere.yaml'], { cwd: dir })
  t.equal(unreachable.code, 1)
  t.match(unreachable.stderr, /^gatehouse: [^\n]*127\.0\.0\.1:1[^\n]*\n$/, 'an unreachable Redis: one line naming it')
  const disabled = await cli(['users', 'disable', 'bob', '--config', 'elsewhere.yaml'], { cwd: dir })
  t.equal(disabled.code, 0, 'the user is disabled even when the sessions cannot be ended now')
  t.match(disabled.stderr, /^Disabled bob\.\ngatehouse: could not end the sessions of bob now \([^\n]*\); the servers end them on their next request\n$/)
  t.equal(await whoIs(base, bob), null, 'and the server ends the session on its next request')
})

test('PostgreSQL sessions: --database, $GATEHOUSE_DATABASE_URL with a schema, and a config file\'s server_app.store', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  await migrate({ url: db.url })
  await migrate({ url: db.url, schema: 'app', tablePrefix: 'gh_' })
  const sessions = await PostgresSessionStore.connect({ url: db.url, poolSize: 2 })
  const other = await PostgresSessionStore.connect({ url: db.url, schema: 'app', tablePrefix: 'gh_', poolSize: 2 })
  t.teardown(async () => { await sessions.close(); await other.close() })
  const dir = t.testdir({ 'pg.yaml': `server_app:\n  store: { postgres: '${db.url}' }\n`, data: {} })
  const { base } = await serve(t, dir, sessions)
  const alice = await Promise.all([1, 2, 3].map(async () => await fetchSignIn(base, 'alice', 'alice-pass')))
  const bob = await fetchSignIn(base, 'bob', 'bob-pass-1')

  const listed = await cli(['users', 'sessions', 'alice', '--json', '--database', db.url])
  t.equal(listed.code, 0, listed.stderr)
  t.same(JSON.parse(listed.stdout).map((i: { handle: string }) => i.handle).sort(), (await handles(base, alice)).sort())
  const viaConfig = await cli(['users', 'sessions', 'alice', '--json', '--config', 'pg.yaml'], { cwd: dir })
  t.equal(JSON.parse(viaConfig.stdout).length, 3, 'a PostgreSQL server_app.store names its sessions table too')
  t.same(JSON.parse((await cli(['users', 'sessions', 'alice', '--json', '--schema', 'app', '--table-prefix', 'gh_'], { env: { GATEHOUSE_DATABASE_URL: db.url } })).stdout), [], 'another schema and prefix: another table')

  const out = await cli(['users', 'signout', 'alice'], { env: { GATEHOUSE_DATABASE_URL: db.url } })
  t.equal(out.stderr, 'Signed alice out: 3 sessions ended.\n')
  for (const cookie of alice) t.equal(await whoIs(base, cookie), null)
  t.equal(await whoIs(base, bob), 'bob')
  t.equal((await cli(['users', 'signout', 'bob', '--database', 'postgres://postgres@127.0.0.1:1/none'])).code, 1, 'an unreachable database: exit 1')
})
