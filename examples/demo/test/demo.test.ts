import { test, type Test } from 'tap'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { userInfo } from 'node:os'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { startDemo } from '../src/app.js'
import { collect, stopChild, waitForText } from '../../../test-helpers/child.js'
import { eventually, HANG_CEILING_MS } from '../../../test-helpers/wait.js'
import { needPostgres, postgresAnswers, testDatabase } from '../../../packages/postgres/test/helpers/postgres.js'

const postgres = await needPostgres()
// The URL the issue gives, as written: the current OS user, database `test` (.ci/run makes both).
const DEMO_URL = 'postgres://127.0.0.1/test'
// The same for this test's own clients: pg alone sends no user name when $USER is unset (the stores fill it in, as libpq does).
const ownUrl = (): string => {
  const url = new URL(DEMO_URL)
  url.username = process.env.PGUSER || process.env.USER || userInfo().username
  return url.href
}

/** As needPostgres, for the issue's URL: a role for this user and a database `test`. */
async function demoDatabase (): Promise<{ skip?: string }> {
  if (await postgresAnswers(ownUrl())) return {}
  if (process.env.GATEHOUSE_REQUIRE_POSTGRES === '1') throw new Error(`GATEHOUSE_REQUIRE_POSTGRES=1 but ${DEMO_URL} does not answer (.ci/run makes the role and the database)`)
  return { skip: `${DEMO_URL} does not answer (a role for this user and a database "test" are needed; set GATEHOUSE_REQUIRE_POSTGRES=1 to fail instead)` }
}

const ENTRY = fileURLToPath(new URL('../src/server.ts', import.meta.url))
const CLI = fileURLToPath(new URL('../../../packages/server/test/fixtures/gatehouse.ts', import.meta.url))

/** Starts the demo's entry point with `args` (data in `dataDir`, `env` added) and waits for the banner line `last`. */
async function startEntry (t: Test, args: string[], dataDir: string, env: Record<string, string>, last: RegExp): Promise<{ child: ChildProcess, output: ReturnType<typeof collect>, url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', ENTRY, ...args], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', GATEHOUSE_DEMO_DATA: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const url = await waitForText(child, output, (text) => {
    const found = /ready at (http:\/\/127\.0\.0\.1:\d+)\//.exec(text)?.[1]
    return found !== undefined && last.test(text) ? found : undefined
  }, { what: 'the demo\'s banner' })
  return { child, output, url }
}

/** Starts the demo's entry point with `args` (data in `dataDir`, the admin password set) and waits for its URL and API key. */
async function runEntry (t: Test, args: string[], dataDir: string): Promise<{ child: ChildProcess, output: ReturnType<typeof collect>, ready: { url: string, key: string } }> {
  const { child, output, url } = await startEntry(t, args, dataDir, { GATEHOUSE_ADMIN_PASSWORD: 'demo-keeper-pass' }, /try: {7}curl/)
  const key = /API key \(shown once\): (gak_\S+)/.exec(output.all())![1]!
  return { child, output, ready: { url, key } }
}

/** The command a banner line (`  <label>: <command>`) prints, or fails the test. */
function printed (t: Test, output: string, label: string): string {
  const line = output.split('\n').find((l) => l.includes(`${label}: `))
  if (line === undefined) throw new Error(`no "${label}" line in:\n${output}`)
  t.pass(`the banner prints ${label}`)
  return line.slice(line.indexOf(`${label}: `) + label.length + 2).trim()
}

/** Runs a printed command line in a shell, as a user who copies it would; `gatehouse` through the CLI's sources (what the root script runs, without its build). */
function shell (command: string, env: Record<string, string> = {}, input?: string): { code: number | null, stdout: string, stderr: string } {
  const line = command.replace('npx -y pnpm@10.34.9 -s gatehouse', `${JSON.stringify(process.execPath)} --import tsx --conditions=gatehouse-src ${JSON.stringify(CLI)}`)
  const run = spawnSync('sh', ['-c', line], { env: { ...process.env, ...env }, input: input ?? '', encoding: 'utf8', timeout: HANG_CEILING_MS })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

// The printed curl line, run by curl when the machine has it; else the same request by fetch.
const hasCurl = spawnSync('sh', ['-c', 'command -v curl']).status === 0

async function adminApi (command: string, env: Record<string, string> = {}): Promise<{ status: number, body: unknown }> {
  if (hasCurl) {
    const run = shell(`${command} -sS -w '\n%{http_code}'`, env)
    const lines = run.stdout.trimEnd().split('\n')
    const status = Number(lines.pop())
    return { status, body: JSON.parse(lines.join('\n')) }
  }
  const [, quoted, url] = /^curl -u (.+) (\S+)$/.exec(command) ?? []
  const credentials = shell(`printf %s ${quoted ?? ''}`, env).stdout
  const res = await fetch(url!, { headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } })
  return { status: res.status, body: await res.json() }
}

test('demo routes via inject', async (t) => {
  const demo = await startDemo({ dataDir: t.testdir({}), adminPassword: 'demo-keeper-pass' })
  t.teardown(() => demo.close())
  const { server } = demo
  t.equal((await server.inject('/')).json().service, 'gatehouse demo')
  t.match((await server.inject('/')).json().try['GET /_server/account'], /^your account page/, 'the landing page links the account page')
  t.equal((await server.inject({ url: '/_server/account', headers: { accept: 'text/html' } })).headers.location, '/_server/login_page?next=%2F_server%2Faccount', 'which sends browsers to sign in first')
  const signIn = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: 'demo-keeper-pass' } })
  const account = await server.inject({ url: '/_server/account', headers: { accept: 'text/html', cookie: String(signIn.headers['set-cookie']).split(';')[0] } })
  t.equal(account.statusCode, 200)
  t.match(account.body, '<dt>Identity</dt><dd>admin</dd>', 'and shows the admin theirs')
  t.same((await server.inject('/boom')).json(), { statusCode: 500, code: 'GATEHOUSE_ERRORS_INTERNAL', error: 'Internal Server Error', message: 'Internal Server Error' })
  t.equal((await server.inject({ url: '/teapot', headers: { accept: 'text/html' } })).body, "418 I'm a Teapot: This server brews tea only")
  t.equal((await server.inject({ url: '/admin', headers: { accept: 'text/html' } })).headers.location, '/_server/login_page?next=%2Fadmin', 'browsers are sent to sign in')
  t.match(demo.apiKey, /^gak_/, 'a key is issued on first start')
  t.equal(demo.generatedAdminPassword, undefined, 'no password is generated when one is given')
})

test('a second start keeps the data and prints nothing secret again', async (t) => {
  const dataDir = t.testdir({})
  const first = await startDemo({ dataDir })
  t.match(first.generatedAdminPassword, /^[A-Za-z0-9_-]{16}$/, 'first start: a generated admin password')
  await first.close()
  const second = await startDemo({ dataDir })
  t.teardown(() => second.close())
  t.equal(second.generatedAdminPassword, undefined)
  t.equal(second.apiKey, undefined)
  const login = await second.server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: first.generatedAdminPassword } })
  t.equal(login.statusCode, 200, 'the first password still works')
})

test('the demo entry point: log in, call the admin route, use the printed API key, stop on SIGTERM', async (t) => {
  const { child, output, ready } = await runEntry(t, [], t.testdir({}))
  const login = await fetch(`${ready.url}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'admin', password: 'demo-keeper-pass' }) })
  t.equal(login.status, 200)
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  t.same(await (await fetch(`${ready.url}/admin`, { headers: { cookie } })).json(), { hello: 'admin', via: 'session' })
  t.same(await (await fetch(`${ready.url}/admin`, { headers: { authorization: `Bearer ${ready.key}` } })).json(), { hello: 'demo-ci', via: 'api_key' })
  t.equal((await fetch(`${ready.url}/admin`)).status, 403)
  // Issue 25 item 15: the printed admin API line works as printed (the password from the environment).
  const curl = printed(t, output.all(), 'admin API')
  t.equal(curl, `curl -u "admin:$GATEHOUSE_ADMIN_PASSWORD" ${ready.url}/_server/users`)
  const users = await adminApi(curl, { GATEHOUSE_ADMIN_PASSWORD: 'demo-keeper-pass' })
  t.equal(users.status, 200, 'the admin API answers the printed line')
  t.same((users.body as { users: Array<{ identity: string }> }).users.map((u) => u.identity), ['admin'])
  // The access line is written once the response is sent: polled.
  t.ok(await eventually(() => /"msg":"-> GET \/admin 200/.test(output.all())), 'access lines')
  t.equal(await stopChild(child, 'SIGTERM'), 0)
  t.notMatch(output.all(), /demo-keeper-pass/, 'the admin password is never logged')
})

test('first start prints a working admin API line; a second start prints no secret and how to get back in', async (t) => {
  const dataDir = t.testdir({})
  const first = await startEntry(t, [], dataDir, {}, /try: {7}curl/)
  const password = /admin password \(shown once[^)]*\): (\S+)/.exec(first.output.all())![1]!
  const curl = printed(t, first.output.all(), 'admin API')
  t.equal(curl, `curl -u 'admin:${password}' ${first.url}/_server/users`, 'the generated password, quoted for the shell')
  const users = await adminApi(curl)
  t.equal(users.status, 200, 'the printed line reaches the admin API')
  t.same((users.body as { users: Array<{ identity: string, tags: string[] }> }).users.map((u) => [u.identity, u.tags.includes('SUPERADMIN')]), [['admin', true]])
  t.equal(await stopChild(first.child, 'SIGTERM'), 0)

  const second = await startEntry(t, [], dataDir, {}, /API keys: /)
  const banner = second.output.all()
  t.notMatch(banner, password, 'the password is not shown again')
  t.notMatch(banner, /gak_/, 'nor a key')
  t.match(banner, 'admin password: shown on the first start only. Lost it? Start again with GATEHOUSE_ADMIN_PASSWORD=<new password>')
  t.equal(printed(t, banner, 'admin API'), `curl -u 'admin:<the admin password>' ${second.url}/_server/users`)
  // The printed ways back in work as printed, against the running demo.
  const passwd = printed(t, banner, 'or set it with')
  t.equal(passwd, `npx -y pnpm@10.34.9 -s gatehouse users passwd admin --store '${dataDir}'`)
  const changed = shell(passwd, {}, 'a-fresh-keeper-passphrase\n')
  t.equal(changed.code, 0, changed.stderr)
  t.ok(await eventually(async () => (await adminApi(`curl -u 'admin:a-fresh-keeper-passphrase' ${second.url}/_server/users`)).status === 200), 'the new password reaches the admin API')
  const issue = printed(t, banner, 'a new one')
  t.equal(issue, `npx -y pnpm@10.34.9 -s gatehouse keys issue --label me --tags admin --store '${dataDir}'`)
  const issued = shell(issue)
  t.equal(issued.code, 0, issued.stderr)
  const key = /gak_\S+/.exec(issued.stdout)?.[0]
  t.ok(await eventually(async () => (await fetch(`${second.url}/admin`, { headers: { authorization: `Bearer ${key ?? ''}` } })).status === 200), 'the new key opens /admin')
  t.equal(await stopChild(second.child, 'SIGTERM'), 0)
})

test('on PostgreSQL: the schema migrated on start, the data kept across starts', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  const dataDir = t.testdir({})
  const first = await startDemo({ dataDir, database: { url: db.url } })
  t.match(first.generatedAdminPassword, /^[A-Za-z0-9_-]{16}$/, 'first start: a generated admin password')
  t.match(first.apiKey, /^gak_/, 'and a key')
  const login = await first.server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: first.generatedAdminPassword } })
  t.equal(login.statusCode, 200)
  const cookie = String(login.headers['set-cookie']).split(';')[0]!
  t.same((await first.server.inject({ url: '/admin', headers: { cookie } })).json(), { hello: 'admin', via: 'session' })
  t.same((await first.server.inject({ url: '/admin', headers: { authorization: `Bearer ${first.apiKey}` } })).json(), { hello: 'demo-ci', via: 'api_key' })
  await first.close()
  t.same(readdirSync(dataDir), [], 'nothing written to the data folder')

  const second = await startDemo({ dataDir, database: { url: db.url } })
  t.teardown(() => second.close())
  t.equal(second.generatedAdminPassword, undefined, 'the admin is in the database')
  t.equal(second.apiKey, undefined, 'and the key')
  t.equal((await second.server.inject({ url: '/admin', headers: { cookie } })).statusCode, 200, 'the session too: it lives in PostgreSQL')
  const again = await second.server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: first.generatedAdminPassword } })
  t.equal(again.statusCode, 200, 'the first password still works')
})

test('the entry point with --database postgres://127.0.0.1/test: log in, the admin route, the API key, stop on SIGTERM', await demoDatabase(), async (t) => {
  // A schema of this run's own in the shared database `test`, dropped afterwards.
  const schema = `demo_${randomBytes(6).toString('hex')}`
  t.teardown(async () => {
    const client = new pg.Client({ connectionString: ownUrl() })
    await client.connect()
    await client.query(`drop schema if exists ${schema} cascade`)
    await client.end()
  })
  const dataDir = t.testdir({})
  const { child, output, ready } = await runEntry(t, ['--database', DEMO_URL, '--schema', schema], dataDir)
  t.match(output.all(), `(data in PostgreSQL at 127.0.0.1:5432/test, schema ${schema};`)
  const login = await fetch(`${ready.url}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'admin', password: 'demo-keeper-pass' }) })
  t.equal(login.status, 200)
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  t.same(await (await fetch(`${ready.url}/admin`, { headers: { cookie } })).json(), { hello: 'admin', via: 'session' })
  t.same(await (await fetch(`${ready.url}/admin`, { headers: { authorization: `Bearer ${ready.key}` } })).json(), { hello: 'demo-ci', via: 'api_key' })
  t.equal(await stopChild(child, 'SIGTERM'), 0)
  t.same(readdirSync(dataDir), [], 'nothing written to the data folder')

  const client = new pg.Client({ connectionString: ownUrl() })
  await client.connect()
  t.teardown(() => client.end())
  const { rows } = await client.query<{ identity: string }>(`select identity from ${schema}.users order by identity`)
  t.same(rows.map((row) => row.identity), ['admin'], 'the admin is in the demo\'s schema')
  t.equal((await client.query(`select 1 from ${schema}.sessions`)).rowCount, 1, 'and the session')
})

test('the entry point refuses a bad --database in one line, without the password', async (t) => {
  for (const [args, code, message] of [
    [['--database', 'mysql://demo:s3cret-pw@127.0.0.1/test'], 1, /^Cannot start the demo: .*unsupported scheme "mysql:"/],
    [['--schema', 'x'], 2, /^--schema goes with --database/],
    [['--databse', 'x'], 2, /^Unknown option '--databse'/]
  ] as Array<[string[], number, RegExp]>) {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', ENTRY, ...args], {
      env: { ...process.env, PORT: '0', GATEHOUSE_DEMO_DATA: t.testdir({}), GATEHOUSE_DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    const output = collect(child)
    const exit = await new Promise<number | null>((resolve) => child.on('close', resolve))
    t.equal(exit, code, args.join(' '))
    t.match(output.stderr(), message)
    t.notMatch(output.all(), /s3cret-pw/)
  }
})
