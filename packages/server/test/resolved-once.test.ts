// Issue 26, item 3: a server's options are resolved once. Each section's
// resolver says so on the `gatehouse:resolve` diagnostics channel; these
// tests count the messages while a server is made, built, asked and closed,
// from options given in code and from a config file (`gatehouse serve`).
import { test } from 'tap'
import { EventEmitter } from 'node:events'
import { PassThrough } from 'node:stream'
import { AppServer, resolveServerOptions, type AppServerOptions } from '@fastify-gatehouse/server'
import { serveCommand } from '../src/cli/serve.js'
import { hangSignal, waitUntil } from '../../../test-helpers/wait.js'
import { countResolves } from '../../../test-helpers/resolve-count.js'

const ADMIN = 'gatekeeper-long-pass-9'
const KEY = 'gak_00000000000000aa_' + 'd'.repeat(43)
// Every section but database (it needs PostgreSQL to build; counted below without building).
const EVERY_SECTION = ['account', 'adminPassword', 'limits', 'login', 'oidc', 'passwordPolicy', 'tokens', 'users']
// And the chain's recipe, resolved by the build (middlewareChain); core counts it too (D-CONFIG-17).
const BUILT = [...EVERY_SECTION, 'recipe'].sort()

const sorted = (counts: Map<string, number>): Array<[string, number]> => [...counts].sort(([a], [b]) => a.localeCompare(b))
const once = (sections: string[]): Array<[string, number]> => sections.map((section) => [section, 1])

const everySection: AppServerOptions = {
  logger: false,
  externalUrl: 'https://app.example.com',
  server: { requestTimeout: 30_000 },
  serverApp: {
    login: { maxAttempts: 3, callbackTimeout: 2 },
    account: { freshFor: 120 },
    oidc: { corp: { issuer: 'https://idp.example.com', clientId: 'gatehouse', clientSecret: 'a-client-secret' } }
  },
  passwordPolicy: { minLength: 12 },
  adminPassword: ADMIN,
  users: { alice: { password: 'alice-garden-pass', tags: 'member' } },
  tokens: { ci: { key: KEY, tags: 'ci' } }
}

test('from code: each section resolved once per server, through create, inject and close', async (t) => {
  const counts = countResolves(t)
  const server = await AppServer.create(everySection)
  t.teardown(() => server.close())
  t.same(sorted(counts), once(BUILT), 'create: every section once, and the recipe')
  t.equal((await server.inject('/_server/login_methods')).statusCode, 200)
  await server.ready()
  const signIn = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: ADMIN } })
  t.equal(signIn.statusCode, 200, 'the admin password, checked once, signs in')
  t.same(sorted(counts), once(BUILT), 'requests and a second ready() resolve nothing again')
})

test('from code: new AppServer resolves in the constructor, the build resolves nothing; a resolved object is taken as it is', async (t) => {
  const counts = countResolves(t)
  const server = new AppServer(everySection)
  t.teardown(() => server.close())
  t.same(sorted(counts), once(EVERY_SECTION), 'the constructor: every section once')
  await server.ready()
  t.same(sorted(counts), once(BUILT), 'the build: the recipe, no section again')

  counts.clear()
  const resolved = resolveServerOptions({ ...everySection, serverApp: {} })
  t.ok(Object.isFrozen(resolved) && Object.isFrozen(resolved.serverApp))
  const fromResolved = await AppServer.create(resolved)
  t.teardown(() => fromResolved.close())
  t.same(sorted(counts), once(BUILT), 'resolveServerOptions once; AppServer.create(resolved) none but the recipe')
})

test('database: its shape resolved once, with the other sections, before anything opens', async (t) => {
  const counts = countResolves(t)
  resolveServerOptions({ database: { url: 'postgres://gatehouse@127.0.0.1:1/none', schema: 'app' } })
  t.same(sorted(counts), once(['account', 'database', 'limits', 'login', 'oidc', 'passwordPolicy', 'tokens', 'users']))
})

test('a bad section rejects ready() and create(), naming it, and is resolved once all the same', async (t) => {
  const counts = countResolves(t)
  const server = new AppServer({ logger: false, serverApp: { login: { maxAttempts: 0 } } })
  await t.rejects(server.ready(), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /serverApp\.login\.maxAttempts/ })
  await t.rejects(server.inject('/'), { message: /serverApp\.login\.maxAttempts/ }, 'the same error again, not a second resolve')
  await server.close()
  t.equal(counts.get('login'), 1)
  await t.rejects(AppServer.create({ logger: false, passwordPolicy: { minLength: 4 } }), { message: /passwordPolicy\.minLength/ })
})

test('from a config file: gatehouse serve reads it, maps it to the same input, and each section is resolved once', async (t) => {
  const dir = t.testdir({
    'gatehouse.yaml': [
      'server:',
      '  request_timeout: 30000',
      'server_app:',
      '  store: ./data',
      '  login: { max_attempts: 3 }',
      '  account: { fresh_for: 120 }',
      '  password_policy: { min_length: 12 }',
      ''
    ].join('\n'),
    data: {}
  })
  const counts = countResolves(t)
  let out = ''
  const signals = new EventEmitter()
  const stdout = new PassThrough().on('data', (chunk: Buffer) => { out += chunk })
  const running = serveCommand(['--config', 'gatehouse.yaml', '--port', '0'],
    { stdin: new PassThrough(), stdout, stderr: new PassThrough().resume(), env: { GATEHOUSE_ADMIN_PASSWORD: ADMIN }, cwd: dir }, signals)
  running.catch(() => {})
  let base = ''
  await waitUntil(async () => {
    base = /serving at (http:\/\/[^/]+)\//.exec(out)?.[1] ?? ''
    return base !== ''
  }, { what: 'gatehouse serve to listen' })
  const signIn = await fetch(`${base}/_server/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'admin', password: ADMIN }), signal: hangSignal()
  })
  t.equal(signIn.status, 200, '$GATEHOUSE_ADMIN_PASSWORD, checked once, signs in')
  signals.emit('SIGTERM')
  t.equal(await running, 0)
  // The folder's users and keys are stores serve opens: their sections are resolved (as none) once.
  // The limits once, by the loader (named as written); the server takes them as they are (D-CONFIG-17).
  // Two recipes: the file's, by the loader, and the server's own (the file's
  // middleware with the _server app's errors, session and csrf settings), by the chain.
  t.same(sorted(counts), once(BUILT).map(([section]) => [section, section === 'recipe' ? 2 : 1]), 'every section once, the admin password included')
})
