// `gatehouse migrate up|down|status`: the PostgreSQL schema of the stores,
// through runCli in this process; each test on a database of its own.
import { test } from 'tap'
import pg from 'pg'
import { migrationNames } from '@fastify-gatehouse/postgres'
import { needPostgres, testDatabase, urlFor } from '../../postgres/test/helpers/postgres.js'
import { gatehouse } from './helpers/cli.js'

const postgres = await needPostgres()
const [LATEST] = migrationNames.slice(-1)
const address = (url: string): string => { const { hostname, port, pathname } = new URL(url); return `${hostname}:${port || '5432'}${pathname}` }
// Nothing from this process's environment (a stray $GATEHOUSE_DATABASE_URL), except what pg itself reads.
const run = async (args: string[], env: Record<string, string> = {}, cwd?: string) => await gatehouse(['migrate', ...args], { env, cleanEnv: true, ...(cwd === undefined ? {} : { cwd }) })

test('up, status, down, status, up', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  const where = `${address(db.url)} (schema gatehouse)`

  const fresh = await run(['status', '--database', db.url])
  t.equal(fresh.code, 1, 'a fresh database is behind')
  t.equal(fresh.stdout, `database: ${where}\napplied:  (none)\npending:  ${migrationNames.join(', ')}\nunknown:  (none)\nbehind: ${migrationNames.length} pending; run \`gatehouse migrate up\`\n`)

  const up = await run(['up', '--database', db.url])
  t.equal(up.code, 0, up.stderr)
  t.equal(up.stderr, `${where}: ran ${migrationNames.join(', ')}; the schema is current.\n`)
  t.equal(up.stdout, '')

  const current = await run(['status', '--database', db.url])
  t.equal(current.code, 0)
  t.match(current.stdout, `applied:  ${migrationNames.join(', ')}\npending:  (none)\nunknown:  (none)\ncurrent: `)

  const again = await run(['up', '--database', db.url])
  t.equal(again.code, 0)
  t.equal(again.stderr, `${where}: already current; nothing to run.\n`)

  const down = await run(['down', '--database', db.url])
  t.equal(down.code, 0, down.stderr)
  t.equal(down.stderr, `${where}: undid ${LATEST}; pending now: ${LATEST}.\n`)

  const behind = await run(['status', '--database', db.url, '--json'])
  t.equal(behind.code, 1)
  t.same(JSON.parse(behind.stdout), {
    database: address(db.url),
    schema: 'gatehouse',
    tablePrefix: '',
    applied: migrationNames.slice(0, -1),
    pending: [LATEST],
    unknown: [],
    state: 'behind'
  })

  const emptied = migrationNames.length === 1 ? await run(['down', '--database', db.url]) : undefined
  if (emptied !== undefined) t.equal(emptied.stderr, `${where}: no migration applied; nothing to undo.\n`, 'down with nothing applied')

  const upAgain = await run(['up', '--database', db.url, '--json'])
  t.equal(upAgain.code, 0)
  t.match(JSON.parse(upAgain.stdout), { direction: 'up', done: [LATEST], pending: [], state: 'current' })
  t.equal((await run(['status', '--database', db.url])).code, 0)
})

test('the URL from $GATEHOUSE_DATABASE_URL; the flag wins; --schema and --table-prefix', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  const env = { GATEHOUSE_DATABASE_URL: db.url }
  const up = await run(['up', '--schema', 'tenant_a', '--table-prefix', 'gh_'], env)
  t.equal(up.code, 0, up.stderr)
  t.match(up.stderr, `${address(db.url)} (schema tenant_a, table prefix gh_): ran `)
  t.equal((await run(['status', '--schema', 'tenant_a', '--table-prefix', 'gh_'], env)).code, 0)
  t.equal((await run(['status', '--schema', 'tenant_a'], env)).code, 1, 'another prefix is another deployment: behind')
  t.equal((await run(['status'], env)).code, 1, 'and the default schema too')

  const pool = new pg.Pool({ connectionString: db.url, max: 1 })
  pool.on('error', () => {})
  t.teardown(() => pool.end())
  const tables = await pool.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'tenant_a' order by 1")
  t.ok(tables.rows.some((row) => row.table_name === 'gh_users'), 'the tables are prefixed')

  // The variable leads nowhere; the flag is used.
  const flagWins = await run(['status', '--database', db.url, '--schema', 'tenant_a', '--table-prefix', 'gh_'], { GATEHOUSE_DATABASE_URL: 'postgres://nobody:s3cret@127.0.0.1:1/nowhere' })
  t.equal(flagWins.code, 0, flagWins.stderr)
  t.match(flagWins.stdout, `database: ${address(db.url)} (schema tenant_a, table prefix gh_)`)
})

test('status says "ahead" and exits 1 when a newer version migrated the database; up refuses it', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  t.equal((await run(['up', '--database', db.url])).code, 0)
  const pool = new pg.Pool({ connectionString: db.url, max: 1 })
  pool.on('error', () => {})
  t.teardown(() => pool.end())
  await pool.query("insert into gatehouse.migrations (name, timestamp) values ('9999-from-the-future', now())")
  const status = await run(['status', '--database', db.url])
  t.equal(status.code, 1)
  t.match(status.stdout, /unknown: {2}9999-from-the-future\nahead: the database holds 1 migration\(s\) this version does not know/)
  const up = await run(['up', '--database', db.url])
  t.equal(up.code, 1)
  t.match(up.stderr, /^gatehouse: the Gatehouse schema in .* is newer than this version \(unknown migrations: 9999-from-the-future\)/)
})

test('parallel `migrate up` runs: every one succeeds, each migration runs once', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  const runs = await Promise.all(Array.from({ length: 12 }, () => run(['up', '--database', db.url, '--json'])))
  t.same(runs.map((r) => r.code), runs.map(() => 0), runs.map((r) => r.stderr).join(''))
  t.same(runs.flatMap((r) => JSON.parse(r.stdout).done).sort(), migrationNames, 'each migration ran exactly once')
  t.equal((await run(['status', '--database', db.url])).code, 0)
})

test('--config: every distinct PostgreSQL store the file names, each once', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  const dir = t.testdir({
    'gatehouse.yaml': `middleware:
  session:
    store: { postgres: '${db.url}', schema: sessions }
server_app:
  store: { postgres: '${db.url}' }
  login:
    store: { postgres: '${db.url}' }
`,
    'folder.yaml': 'server_app:\n  store: ./data\n'
  })
  const behind = await run(['status', '--config', 'gatehouse.yaml'], {}, dir)
  t.equal(behind.code, 1)
  t.equal(behind.stdout.match(/^database: /gm)?.length, 2, 'two blocks: the users\' and lockout schema (one), the sessions schema')
  const up = await run(['up', '--config', 'gatehouse.yaml'], {}, dir)
  t.equal(up.code, 0, up.stderr)
  t.match(up.stderr, `${address(db.url)} (schema gatehouse): ran `)
  t.match(up.stderr, `${address(db.url)} (schema sessions): ran `)
  t.equal((await run(['status', '--config', 'gatehouse.yaml'], {}, dir)).code, 0)
  const none = await run(['status', '--config', 'folder.yaml'], {}, dir)
  t.equal(none.code, 1)
  t.match(none.stderr, /folder\.yaml: the file names no PostgreSQL store/)
  t.equal((await run(['status', '--config', 'gatehouse.yaml', '--database', db.url], {}, dir)).code, 2, 'one of --config and --database')
  t.equal((await run(['status', '--config', 'gatehouse.yaml', '--schema', 'x'], {}, dir)).code, 2, '--schema goes with --database')
})

test('a bad URL: one line naming where it came from, exit 1, nothing connects', async (t) => {
  for (const [args, env, message] of [
    [['--database', 'mysql://gate:s3cret@127.0.0.1/app'], {}, 'gatehouse: --database: unsupported scheme "mysql:" (expected postgres: or postgresql:)\n'],
    [['--database', 'not a url'], {}, 'gatehouse: --database: not a URL (expected postgres://user@host:port/database)\n'],
    [['--database', ''], {}, 'gatehouse: --database: expected a postgres:// URL\n'],
    [[], { GATEHOUSE_DATABASE_URL: 'http://gate:s3cret@127.0.0.1/app' }, 'gatehouse: $GATEHOUSE_DATABASE_URL: unsupported scheme "http:" (expected postgres: or postgresql:)\n'],
    [['--database', 'postgres://127.0.0.1/app', '--schema', 'Public'], {}, 'gatehouse: --schema: expected a schema name of lower-case letters, digits and "_" (at most 32, not starting with a digit)\n'],
    [['--database', 'postgres://127.0.0.1/app', '--table-prefix', 'gh-'], {}, 'gatehouse: --table-prefix: expected "" or lower-case letters, digits and "_" (at most 16, not starting with a digit)\n']
  ] as Array<[string[], Record<string, string>, string]>) {
    for (const action of ['up', 'down', 'status']) {
      const res = await run([action, ...args], env)
      t.equal(res.code, 1, `${action} ${args.join(' ')}`)
      t.equal(res.stderr, message)
      t.equal(res.stdout, '')
    }
  }
})

test('an unreachable database: one line naming host:port/database, exit 1, never the password', async (t) => {
  // Port 1 on loopback refuses at once.
  for (const action of ['up', 'down', 'status']) {
    const res = await run([action, '--database', 'postgres://gate:s3cret-pw@127.0.0.1:1/somedb'])
    t.equal(res.code, 1, action)
    t.match(res.stderr, /^gatehouse: migrate cannot reach PostgreSQL at 127\.0\.0\.1:1\/somedb: [^\n]+\n$/)
    t.notMatch(res.stderr + res.stdout, /s3cret-pw/)
  }
  const fromEnv = await run(['status'], { GATEHOUSE_DATABASE_URL: urlFor('somedb', 'postgres://gate:s3cret-pw@127.0.0.1:1/x') })
  t.equal(fromEnv.code, 1)
  t.notMatch(fromEnv.stderr, /s3cret-pw/)
})

test('wrong usage: exit 2 with the usage', async (t) => {
  const missing = await run(['status'])
  t.equal(missing.code, 2)
  t.match(missing.stderr, /^gatehouse: give the database: --database <url> or \$GATEHOUSE_DATABASE_URL\n\nUsage:\n {2}gatehouse migrate up/)
  t.match(missing.stderr, /A password in --database is visible to every user of the machine \(ps\)/, 'the usage warns about argv')
  t.equal((await run(['up'], { GATEHOUSE_DATABASE_URL: '' })).code, 2, 'an empty variable is unset')
  for (const args of [[], ['sideways'], ['up', 'extra', '--database', 'postgres://127.0.0.1/x'], ['up', '--databse', 'postgres://127.0.0.1/x'], ['status', '--database']]) {
    const res = await run(args)
    t.equal(res.code, 2, args.join(' '))
    t.match(res.stderr, /\n\nUsage:\n {2}gatehouse migrate up/)
  }
  const help = await gatehouse(['migrate', '--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /^Usage:\n {2}gatehouse migrate up/)
  const all = await gatehouse(['--help'])
  t.match(all.stdout, /gatehouse migrate status/, 'the whole usage lists migrate')
})
