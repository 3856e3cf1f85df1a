// A database URL where a folder is expected (an easy slip: --database and
// AppServer's database take bare URLs) is refused without echoing it (it
// may carry a password) and without making folders of it; and a database
// URL that cannot be decoded is a boot error naming the option.
import { test } from 'tap'
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { AppServer } from '@fastify-gatehouse/server'
import pg from 'pg'
import { gatehouse } from './helpers/cli.js'
import { needPostgres, testDatabase } from '../../postgres/test/helpers/postgres.js'
import { waitUntil } from '../../../test-helpers/wait.js'

const postgres = await needPostgres()

const URL_WITH_PASSWORD = 'postgres://bob:S3cretPW@127.0.0.1:1/app'

test('--store and $GATEHOUSE_STORE refuse a URL: usage error, no password shown, no folder made', async (t) => {
  const cwd = t.testdir({})
  for (const [args, env] of [
    [['users', 'add', 'alice', '--store', URL_WITH_PASSWORD], {}],
    [['keys', 'list', '--store', URL_WITH_PASSWORD], {}],
    [['keys', 'list'], { GATEHOUSE_STORE: URL_WITH_PASSWORD }]
  ] as Array<[string[], Record<string, string>]>) {
    const run = await gatehouse(args, { cwd, env, stdin: 'alice-password\n', cleanEnv: true })
    t.equal(run.code, 2, `${args.join(' ')}: usage error`)
    t.match(run.stderr, /takes a folder, not a URL; PostgreSQL is --database/)
    t.notMatch(run.stdout + run.stderr, /S3cretPW/, 'the password is never shown')
  }
  t.same(readdirSync(cwd), [], 'no folder was made')
})

test('server_app.store given a URL string: a boot error naming the key, not the URL', async (t) => {
  const dir = t.testdir({})
  writeFileSync(join(dir, 'gatehouse.yaml'), `server_app:\n  store: "${URL_WITH_PASSWORD}"\n`)
  const run = await gatehouse(['serve', '--config', join(dir, 'gatehouse.yaml'), '--port', '0'], { cwd: dir, cleanEnv: true })
  t.equal(run.code, 1)
  t.match(run.stderr, /server_app\.store: a URL is not a folder/)
  t.notMatch(run.stdout + run.stderr, /S3cretPW/)
  t.same(readdirSync(dir), ['gatehouse.yaml'], 'no store folder was started')
})

test('a database URL whose %-escape cannot be decoded: a boot error naming database.url', async (t) => {
  const server = new AppServer({ logger: false, database: { url: 'postgres://u:pw@127.0.0.1:1/%zz' } })
  await t.rejects(server.ready(), { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: /database\.url: a %-escape/ })
  await server.close()
})

test('serve() that cannot listen (the port taken) closes the database pools it opened', postgres, async (t) => {
  const db = await testDatabase()
  const admin = new pg.Pool({ connectionString: db.url, max: 1 })
  admin.on('error', () => {})
  t.teardown(async () => { await admin.end(); await db.drop() })
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => taken.close())
  const port = (taken.address() as { port: number }).port
  const server = new AppServer({ logger: false, database: { url: db.url, migrate: true } })
  await t.rejects(server.serve('127.0.0.1', port), { code: 'EADDRINUSE' })
  const open = async (): Promise<number> => (await admin.query("select count(*)::int as n from pg_stat_activity where datname = $1 and application_name like 'gatehouse%'", [db.name])).rows[0].n
  await waitUntil(async () => await open() === 0, { what: 'every pool and listener of the failed server to close' })
  t.equal(await open(), 0, 'no connection left, without calling close()')
})
