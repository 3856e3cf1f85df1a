// Issue 16, item 1: the password policy wherever a password is set through
// the server — the admin API, `gatehouse users add|passwd|hash`,
// `adminPassword` and $GATEHOUSE_ADMIN_PASSWORD — with AppServer's
// `passwordPolicy` and the config file's `server_app.password_policy`.
// Sign-in never applies it. D-PASSWORD-03, D-PASSWORD-04, D-PASSWORD-08,
// D-CLI-15, D-SERVER-21.
import { test, type Test } from 'tap'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { FileUserStore } from '@fastify-gatehouse/files'
import { allComponents, AppServer, PasswordMethod, serverApp, type AppServerOptions } from '@fastify-gatehouse/server'
import { gatehouse } from './helpers/cli.js'
import { collect, stopChild, waitForOutput } from '../../../test-helpers/child.js'

const FAST = { N: 1024, r: 8, p: 1 }
const ADMIN = 'gatekeeper-pass'
const WEAK = 'GATEHOUSE_SERVER_WEAK_PASSWORD'
const weak = (message: string) => ({ statusCode: 400, code: WEAK, error: 'Bad Request', message })
const FIXTURE = fileURLToPath(new URL('./fixtures/gatehouse.ts', import.meta.url))

async function adminServer (t: Test, options: AppServerOptions = {}) {
  const users = new MemoryUserStore({ scrypt: FAST })
  const adminPassword = options.adminPassword ?? ADMIN
  const server = new AppServer({ logger: false, users, serverApp: { login: { maxAttempts: 50 } }, ...options, adminPassword })
  t.teardown(() => server.close())
  const signIn = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: adminPassword } })
  t.equal(signIn.statusCode, 200, 'the admin signs in')
  const cookie = String(signIn.headers['set-cookie']).split(';')[0]!
  const as = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    server.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload }) })
  const login = async (identity: string, password: string) =>
    (await server.inject({ method: 'POST', url: '/_server/login', payload: { identity, password } })).statusCode
  return { server, users, as, login }
}

test('admin API: POST /_server/users with a password the policy refuses is 400 naming the rule; nothing is stored', async (t) => {
  const { as, users, login } = await adminServer(t)
  const cases: Array<[string, string]> = [
    ['short12', 'The password must be at least 8 characters long. (rule: min-length)'],
    ['q'.repeat(257), 'The password must be at most 256 characters long. (rule: max-length)'],
    ['tab\tinside the password', 'The password must not contain control characters. (rule: unprintable)'],
    ['carol-in-the-password', 'The password must not contain the identity. (rule: contains-identity)'],
    ['Sunshine', 'The password is one of the most common passwords; choose another. (rule: common)']
  ]
  for (const [password, message] of cases) {
    const res = await as('POST', '/_server/users', { identity: 'carol', password, tags: 'ops' })
    t.equal(res.statusCode, 400, message)
    t.match(res.headers['content-type'], /^application\/json/)
    t.same(res.json(), weak(message))
    t.notOk(res.body.includes(password), 'the password is not echoed')
  }
  t.equal(await users.get('carol'), null, 'no user was added')
  const created = await as('POST', '/_server/users', { identity: 'carol', password: 'a walk in the park', tags: 'ops' })
  t.equal(created.statusCode, 201)
  t.equal(await login('carol', 'a walk in the park'), 200)
})

test('admin API: PATCH /_server/users/:identity with a refused password is 400; the old password still works', async (t) => {
  const { as, users, login } = await adminServer(t)
  await users.add('dave', { password: 'first-dave-pw', tags: [] })
  const refused = await as('PATCH', '/_server/users/dave', { password: 'DAVE-1234567', tags: 'ops' })
  t.same(refused.json(), weak('The password must not contain the identity. (rule: contains-identity)'))
  t.same((await users.get('dave'))?.tags, [], 'nothing of the request was applied (not even the tags)')
  t.equal(await login('dave', 'first-dave-pw'), 200)
  t.same((await as('PATCH', '/_server/users/dave', { password: 'password123' })).json(), weak('The password is one of the most common passwords; choose another. (rule: common)'))
  t.equal((await as('PATCH', '/_server/users/nobody', { password: 'x' })).statusCode, 404, 'an unknown user is 404 whatever the password')
  const changed = await as('PATCH', '/_server/users/dave', { password: 'a second good one' })
  t.equal(changed.statusCode, 200)
  t.equal(await login('dave', 'a second good one'), 200)
  t.equal(await login('dave', 'first-dave-pw'), 401)
})

test('passwordPolicy: { minLength: 16 } applies to the admin API and to adminPassword', async (t) => {
  const policy = { minLength: 16, maxLength: 64 }
  const short = new AppServer({ logger: false, adminPassword: ADMIN, passwordPolicy: policy })
  await t.rejects(short.ready(), { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: 'adminPassword: The password must be at least 16 characters long. (rule: min-length)' },
    'a 15-character adminPassword, fine by the defaults, stops the boot')
  await short.close()

  const { as, login } = await adminServer(t, { adminPassword: 'gatekeeper-pass-16', passwordPolicy: policy })
  t.same((await as('POST', '/_server/users', { identity: 'erin', password: 'fifteen-chars-x' })).json(), weak('The password must be at least 16 characters long. (rule: min-length)'))
  t.same((await as('POST', '/_server/users', { identity: 'erin', password: 'w'.repeat(65) })).json(), weak('The password must be at most 64 characters long. (rule: max-length)'))
  t.equal((await as('POST', '/_server/users', { identity: 'erin', password: 'sixteen-chars-xy' })).statusCode, 201)
  t.equal(await login('erin', 'sixteen-chars-xy'), 200)
})

test('passwordPolicy: a bad one is a boot error naming the option, before the database is opened', async (t) => {
  const boot = async (options: AppServerOptions) => {
    const server = new AppServer({ logger: false, ...options })
    try {
      await server.ready()
      return undefined
    } catch (err) {
      return err
    } finally {
      await server.close()
    }
  }
  const INVALID = 'GATEHOUSE_AUTH_INVALID_CONFIG'
  t.match(await boot({ passwordPolicy: { minLength: 4 } }), { code: INVALID, message: 'passwordPolicy.minLength: must be a whole number from 8 to 64, got 4' })
  t.match(await boot({ passwordPolicy: { maxLength: 32 } }), { code: INVALID, message: 'passwordPolicy.maxLength: must be a whole number from 64 to 512, got 32' })
  t.match(await boot({ passwordPolicy: { maxAge: 90 } as never }), { code: INVALID, message: 'passwordPolicy.maxAge: unknown option (known: minLength, maxLength)' })
  t.match(await boot({ passwordPolicy: 'strict' as never }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^passwordPolicy: expected object/ })
  // Port 1 refuses connections: had the database been opened first, this would be a connect error.
  t.match(await boot({ database: 'postgres://gatehouse@127.0.0.1:1/app', passwordPolicy: { minLength: 65 } }), { code: INVALID, message: /^passwordPolicy\.minLength: / })
  t.match(await boot({ database: 'postgres://gatehouse@127.0.0.1:1/app', adminPassword: 'admin12345' }),
    { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: 'adminPassword: The password must not contain the identity. (rule: contains-identity)' })
})

test('adminPassword: each rule, named, as the identity admin; never the value', async (t) => {
  const cases: Array<[string, string]> = [
    ['1234567', 'min-length'],
    ['Admin-of-the-day', 'contains-identity'],
    ['football1', 'common'],
    ['line\nbreak here', 'unprintable'],
    ['y'.repeat(257), 'max-length']
  ]
  for (const [password, rule] of cases) {
    const server = new AppServer({ logger: false, adminPassword: password })
    const err = await server.ready().then(() => undefined, (e: Error) => e)
    t.match(err, { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: new RegExp(`^adminPassword: The password .*\\(rule: ${rule}\\)$`) }, rule)
    t.notOk(err?.message.includes(password), 'the value is not in the message')
    await server.close()
  }
})

test('the _server app registered directly: passwordPolicy as written, checked at boot; the defaults without one', async (t) => {
  const users = new MemoryUserStore({ scrypt: FAST })
  const build = async (options: Record<string, unknown>) => {
    const app = Fastify()
    t.teardown(() => app.close())
    await middlewareChain(app, { middleware: { session: true } }, { components: allComponents })
    await app.register(serverApp, { prefix: '/_server', methods: [new PasswordMethod({ users })], ...options })
    await app.ready()
    return app
  }
  await t.rejects(build({ passwordPolicy: { minLength: 7 } }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'passwordPolicy.minLength: must be a whole number from 8 to 64, got 7' })
  t.ok(await build({ passwordPolicy: { minLength: 12 } }), 'a policy as written')
  t.ok(await build({}), 'no policy: the defaults')
})

test('a password set before the policy keeps working at sign-in: a stored 3-character password signs in', async (t) => {
  const users = new MemoryUserStore({ scrypt: FAST })
  // The UserStore API does not apply the policy: this is how an older store holds it.
  await users.add('olga', { password: 'abc', tags: 'ops' })
  const { server, as, login } = await adminServer(t, { users })
  t.equal(await login('olga', 'abc'), 200, 'JSON sign-in')
  t.equal(await login('olga', 'abd'), 401)
  const form = await server.inject({
    method: 'POST', url: '/_server/login', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, payload: 'identity=olga&password=abc&next=%2F'
  })
  t.equal(form.statusCode, 303, 'form sign-in')
  t.equal(form.headers.location, '/')
  t.same((await as('PATCH', '/_server/users/olga', { password: 'abcd' })).json(), weak('The password must be at least 8 characters long. (rule: min-length)'), 'a new one must follow the policy')
  t.equal(await login('olga', 'abc'), 200, 'and the old one still works after the refusal')
})

test('gatehouse users add|passwd: a refused password is one line naming the rule, exit 1; nothing changes', async (t) => {
  const dir = t.testdir({})
  const store = ['--store', dir]
  const add = await gatehouse(['users', 'add', 'frank', ...store], { stdin: 'franky-goes-on\n' })
  t.same(add, { code: 1, stdout: '', stderr: 'gatehouse: The password must not contain the identity. (rule: contains-identity)\n' })
  const common = await gatehouse(['users', 'add', 'frank', ...store], { stdin: 'iloveyou\n' })
  t.same(common, { code: 1, stdout: '', stderr: 'gatehouse: The password is one of the most common passwords; choose another. (rule: common)\n' })
  const added = await gatehouse(['users', 'add', 'frank', ...store], { stdin: '  spaces kept as typed  \n' })
  t.equal(added.code, 0, added.stderr)
  const users = await FileUserStore.open(join(dir, 'users.json'), { watchInterval: 0 })
  t.ok(await users.verify('frank', '  spaces kept as typed  '), 'the line as typed: not trimmed')
  t.equal(await users.verify('frank', 'spaces kept as typed'), null)

  const passwd = await gatehouse(['users', 'passwd', 'frank', ...store], { stdin: 'short\n' })
  t.same(passwd, { code: 1, stdout: '', stderr: 'gatehouse: The password must be at least 8 characters long. (rule: min-length)\n' })
  t.ok(await users.verify('frank', '  spaces kept as typed  '), 'the password is unchanged')
  t.equal((await gatehouse(['users', 'passwd', 'frank', ...store], { stdin: 'new and long enough\n' })).code, 0)
  t.ok(await users.verify('frank', 'new and long enough'))
})

test('gatehouse users add|passwd --config: the file\'s server_app.password_policy', async (t) => {
  const dir = t.testdir({ 'gatehouse.yaml': 'server_app:\n  store: ./data\n  password_policy: { min_length: 15 }\n' })
  const config = ['--config', join(dir, 'gatehouse.yaml')]
  const short = await gatehouse(['users', 'add', 'gina', ...config], { stdin: 'fourteen-chars\n' })
  t.same(short, { code: 1, stdout: '', stderr: 'gatehouse: The password must be at least 15 characters long. (rule: min-length)\n' })
  t.equal((await gatehouse(['users', 'add', 'gina', ...config], { stdin: 'fifteen-chars-x\n' })).code, 0)
  t.equal((await gatehouse(['users', 'passwd', 'gina', ...config], { stdin: 'fourteen-chars\n' })).code, 1)
  t.equal((await gatehouse(['users', 'add', 'hank', '--store', join(dir, 'data')], { stdin: 'fourteen-chars\n' })).code, 0, 'without --config: the defaults')
})

test('server_app.password_policy: a bad value is one line naming it as written, exit 1', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['{ min_length: 4 }', /^gatehouse: \S+gatehouse\.yaml: server_app\.password_policy\.min_length: expected integer to be greater or equal to 8\n$/],
    ['{ max_length: 600 }', /^gatehouse: \S+gatehouse\.yaml: server_app\.password_policy\.max_length: expected integer to be less or equal to 512\n$/],
    ['{ min_length: 12.5 }', /^gatehouse: \S+gatehouse\.yaml: server_app\.password_policy\.min_length: expected integer\n$/],
    ['{ max_age: 90 }', /^gatehouse: \S+gatehouse\.yaml: server_app\.password_policy\.max_age: unknown option\n$/],
    ['strict', /^gatehouse: \S+gatehouse\.yaml: server_app\.password_policy: expected object\n$/]
  ]
  for (const [value, message] of cases) {
    const dir = t.testdir({ 'gatehouse.yaml': `server_app:\n  store: ./data\n  password_policy: ${value}\n` })
    for (const args of [['users', 'add', 'ivy', '--config', 'gatehouse.yaml'], ['serve', '--config', 'gatehouse.yaml', '--port', '0']]) {
      const res = await gatehouse(args, { cwd: dir, stdin: 'a fine password\n' })
      t.equal(res.code, 1, `${value}: ${args[0]}`)
      t.match(res.stderr, message)
    }
  }
})

test('gatehouse serve: $GATEHOUSE_ADMIN_PASSWORD against the file\'s policy, before anything opens', async (t) => {
  const dir = t.testdir({ 'gatehouse.yaml': 'server_app:\n  store: ./data\n  password_policy: { min_length: 20 }\n' })
  const res = await gatehouse(['serve', '--config', 'gatehouse.yaml', '--port', '0'], { cwd: dir, env: { GATEHOUSE_ADMIN_PASSWORD: ADMIN } })
  t.same(res, { code: 1, stdout: '', stderr: 'gatehouse: $GATEHOUSE_ADMIN_PASSWORD: The password must be at least 20 characters long. (rule: min-length)\n' })
  const named = await gatehouse(['serve', '--config', 'gatehouse.yaml', '--port', '0'], { cwd: dir, env: { GATEHOUSE_ADMIN_PASSWORD: 'the admin of this server' } })
  t.equal(named.stderr, 'gatehouse: $GATEHOUSE_ADMIN_PASSWORD: The password must not contain the identity. (rule: contains-identity)\n')
})

test('gatehouse serve: server_app.password_policy reaches the admin API', async (t) => {
  const dir = t.testdir({ 'gatehouse.yaml': 'server:\n  host: 127.0.0.1\nserver_app:\n  store: ./data\n  password_policy: { min_length: 12 }\n' })
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE, 'serve', '--config', 'gatehouse.yaml', '--port', '0'], {
    cwd: dir, env: { ...process.env, GATEHOUSE_ADMIN_PASSWORD: 'gatekeeper-pass-12' }
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const base = (await waitForOutput(child, output, /serving at (http:\/\/127\.0\.0\.1:\d+)\//, { what: 'the "serving at" line' }))[1]!
  const json = { 'content-type': 'application/json' }
  const admin = await fetch(`${base}/_server/login`, { method: 'POST', headers: json, body: JSON.stringify({ identity: 'admin', password: 'gatekeeper-pass-12' }) })
  t.equal(admin.status, 200)
  const cookie = admin.headers.get('set-cookie')!.split(';')[0]!
  const add = (password: string) => fetch(`${base}/_server/users`, { method: 'POST', headers: { ...json, cookie }, body: JSON.stringify({ identity: 'jill', password }) })
  const refused = await add('eleven-char')
  t.equal(refused.status, 400)
  t.same(await refused.json(), weak('The password must be at least 12 characters long. (rule: min-length)'))
  t.equal((await add('twelve-chars')).status, 201)
  t.equal(await stopChild(child, 'SIGTERM'), 0)
})
