import { test } from 'tap'
import { request } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { basic, hs256 } from './helpers/credentials.js'
import { waitUntil } from '../../../test-helpers/wait.js'

const SECRET = 'app-server-test-secret-of-32-bytes!!'
const BROWSER = 'text/html,application/xhtml+xml,*/*;q=0.8'
const jwt = (claims: object): string => hs256(claims, SECRET)

class Shop extends RoutedApplication {
  @route('/orders', { authRule: 'admin|ops' })
  async orders (request: FastifyRequest) { return { orders: [], for: request.scope.auth?.identity } }

  @route('/orders', { method: 'POST', authRule: 'ops', schema: { body: { type: 'object', required: ['item'], properties: { item: { type: 'string' } } } } })
  async create (request: FastifyRequest, reply: FastifyReply) { return reply.code(201).send({ created: (request.body as { item: string }).item }) }

  @route('/')
  async home () { return { shop: 'open' } }
}

/** A handler that waits at a gate: the test sees it entered, and opens the gate when it wants. */
class Slow extends RoutedApplication {
  entered = 0
  #open: () => void = () => {}
  readonly #gate = new Promise<void>((resolve) => { this.#open = resolve })
  open (): void { this.#open() }

  @route('/wait')
  async wait () { this.entered++; await this.#gate; return { waited: true } }
}

function build (slow = new Slow()) {
  return new AppServer({
    logger: false,
    primary: new Shop(),
    apps: { '/slow': slow },
    auth: { basic: { root: { password: 'root-pass', tags: 'admin' } }, bearer: { ci: { token: 'ci-token', tags: 'ops' } }, jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags' }] },
    users: { alice: { password: 'alice-pass', tags: 'ops' } },
    tokens: { deployer: { key: 'gak_00000000000000aa_' + 'd'.repeat(43), tags: 'ops' } },
    adminPassword: 'gatekeeper-pass',
    login: true,
    serverApp: { login: { maxAttempts: 5, backoff: 30 } }
  })
}

test('the DESIGN §9 example: every way in reaches the routes', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  t.same((await server.inject('/')).json(), { shop: 'open' })
  const anon = await server.inject('/orders')
  t.equal(anon.statusCode, 403, 'protected, no credentials: 403')
  t.equal((await server.inject({ url: '/orders', headers: { authorization: basic('root', 'root-pass') } })).json().for, 'root', 'basic')
  t.equal((await server.inject({ url: '/orders', headers: { authorization: 'Bearer ci-token' } })).json().for, 'ci', 'static bearer')
  t.equal((await server.inject({ url: '/orders', headers: { authorization: `Bearer ${jwt({ sub: 'joe', tags: ['ops'], exp: Math.floor(Date.now() / 1000) + 60 })}` } })).json().for, 'joe', 'JWT (server form: a list)')
  t.equal((await server.inject({ url: '/orders', headers: { authorization: `Bearer gak_00000000000000aa_${'d'.repeat(43)}` } })).json().for, 'deployer', 'API key from the plain tokens object')
  const login = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })
  t.equal(login.statusCode, 200)
  const cookie = String(login.headers['set-cookie']).split(';')[0]!
  t.equal((await server.inject({ url: '/orders', headers: { cookie } })).json().for, 'alice', 'a session from the password login')
  const created = await server.inject({ method: 'POST', url: '/orders', payload: { item: 'tea' }, headers: { cookie } })
  t.equal(created.statusCode, 201)
  t.same(created.json(), { created: 'tea' })
  t.equal((await server.inject({ method: 'POST', url: '/orders', payload: {}, headers: { cookie } })).statusCode, 400, 'the route schema applies')
})

test('the 401 negotiation through AppServer', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const nav = await server.inject({ url: '/orders?page=2', headers: { accept: BROWSER } })
  t.equal(nav.statusCode, 302, 'an anonymous browser navigation to a protected route goes to the login page')
  t.equal(nav.headers.location, '/_server/login_page?next=%2Forders%3Fpage%3D2')
  const badNav = await server.inject({ url: '/orders', headers: { accept: BROWSER, authorization: 'Bearer wrong' } })
  t.equal(badNav.statusCode, 302, 'so does a 401 navigation')
  const api = await server.inject({ url: '/orders', headers: { authorization: 'Bearer wrong' } })
  t.equal(api.statusCode, 401)
  t.match(api.headers['www-authenticate'], /^Bearer realm="gatehouse", error="invalid_token"/)
  t.equal(api.json().login_url, '/_server/login_page?next=%2Forders')
})

test('a failed sign-in never sends the caller back to a /_server route (issue 14)', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const failed = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'wrong' } })
  t.equal(failed.statusCode, 401)
  t.equal(failed.json().code, 'GATEHOUSE_SERVER_INVALID_LOGIN')
  t.equal(failed.json().login_url, '/_server/login_page?next=%2F', 'not next=/_server/login (POST only: sign-in would land on a 404)')
  const admin = await server.inject({ url: '/_server/users', headers: { authorization: 'Bearer wrong' } })
  t.equal(admin.json().login_url, '/_server/login_page?next=%2F')
  const page = await server.inject('/_server/login_page?next=/_server/login')
  t.match(page.body, 'data-next="/"', 'a crafted link to the page does not carry it either')
  const form = await server.inject({
    method: 'POST',
    url: '/_server/login',
    headers: { host: 'shop.example', origin: 'http://shop.example', 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: 'identity=alice&password=alice-pass&next=%2F_server%2Flogin'
  })
  t.equal(form.statusCode, 303)
  t.equal(form.headers.location, '/')
})

test('SUPERADMIN: the bootstrapped admin manages users and tokens; nobody else can', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const login = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: 'gatekeeper-pass' } })
  t.same(login.json().tags, ['SUPERADMIN'])
  const cookie = String(login.headers['set-cookie']).split(';')[0]!
  const as = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, who = cookie) =>
    server.inject({ method, url, headers: { cookie: who }, ...(payload === undefined ? {} : { payload }) })

  const users = await as('GET', '/_server/users')
  t.same(users.json().users.map((u: { identity: string }) => u.identity).sort(), ['admin', 'alice'])
  t.notMatch(users.body, /scrypt|passwordHash|alice-pass/)
  const created = await as('POST', '/_server/users', { identity: 'bob', password: 'night-shift-pw', tags: 'ops' })
  t.equal(created.statusCode, 201)
  t.match(created.json(), { user: { identity: 'bob', tags: ['ops'], enabled: true } })
  const again = await as('POST', '/_server/users', { identity: 'bob', password: 'another-night-pw' })
  t.equal(again.statusCode, 400, 'an existing identity')
  t.equal(again.json().code, 'GATEHOUSE_AUTH_STORE_INPUT')
  t.equal((await as('POST', '/_server/users', { identity: 'eve' })).statusCode, 400, 'no password')
  t.match((await as('PATCH', '/_server/users/bob', { enabled: false, tags: ['ops', 'night'] })).json(), { user: { enabled: false, tags: ['ops', 'night'] } })
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'bob', password: 'night-shift-pw' } })).statusCode, 401, 'disabled')
  t.equal((await as('PATCH', '/_server/users/nobody', { enabled: true })).statusCode, 404)
  t.equal((await as('DELETE', '/_server/users/bob')).statusCode, 200)

  const issued = await as('POST', '/_server/tokens', { label: 'robot', tags: ['ops'] })
  t.equal(issued.statusCode, 201)
  t.equal(issued.headers['cache-control'], 'no-store')
  const { key, token } = issued.json()
  t.match(key, /^gak_[0-9a-f]{16}_/)
  t.equal((await server.inject({ url: '/orders', headers: { authorization: `Bearer ${key}` } })).json().for, 'robot')
  const listed = await as('GET', '/_server/tokens')
  t.notOk(listed.body.includes(key.slice(21)), 'the key is never listed')
  t.equal((await as('POST', `/_server/tokens/${token.keyId}/revoke`)).statusCode, 200)
  t.equal((await server.inject({ url: '/orders', headers: { authorization: `Bearer ${key}` } })).statusCode, 401)
  t.equal((await as('POST', '/_server/tokens/nothex/revoke')).statusCode, 400)
  t.equal((await as('DELETE', `/_server/tokens/${token.keyId}`)).statusCode, 200)

  const alice = String((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })).headers['set-cookie']).split(';')[0]!
  t.equal((await as('GET', '/_server/users', undefined, alice)).statusCode, 403, 'a signed-in non-admin')
  t.equal((await server.inject('/_server/tokens')).statusCode, 403, 'anonymous')
})

test('adminPassword updates an existing admin', async (t) => {
  const { MemoryUserStore } = await import('@fastify-gatehouse/auth')
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('admin', { password: 'old-password', tags: 'ops' })
  await users.setEnabled('admin', false)
  const server = new AppServer({ logger: false, users, adminPassword: 'new-password' })
  t.teardown(() => server.close())
  await server.ready()
  t.match(await users.verify('admin', 'new-password'), { tags: ['ops', 'SUPERADMIN'] })
})

test('close() lets requests in flight finish', async (t) => {
  const slow = new Slow()
  const server = build(slow)
  const url = new URL(await server.serve('127.0.0.1', 0))
  const inflight = new Promise<{ status?: number, body: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port: url.port, path: '/slow/wait', agent: false }, (res) => {
      let body = ''
      res.on('data', (c) => { body += c })
      res.on('end', () => resolve({ status: res.statusCode, body }))
    }).on('error', reject).end()
  })
  // In flight for sure: the handler has started (a fixed wait could close first on a busy machine).
  await waitUntil(() => slow.entered === 1, { what: 'the request to reach its handler' })
  const closing = server.close()
  // The gate opens once the server has stopped listening: the request
  // finishes while the server is closing.
  await waitUntil(() => !server.fastify.server.listening, { what: 'the server to stop listening' })
  slow.open()
  const done = await inflight
  await closing
  t.same(done, { status: 200, body: '{"waited":true}' })
})

test('boot errors surface from ready(), coded and naming the option', async (t) => {
  const OPTIONS = 'GATEHOUSE_SERVER_INVALID_OPTIONS'
  const cases: Array<[ConstructorParameters<typeof AppServer>[0], string | undefined, RegExp]> = [
    [{ adminPassword: 'short' }, OPTIONS, /^adminPassword: The password must be at least 8 characters long\. \(rule: min-length\)$/],
    [{ apps: { '/': new Shop() } }, OPTIONS, /^apps: a mount prefix must start with "\/" and not be "\/"/],
    [{ auth: { jwt: { main: { secret: SECRET, algorithm: 'HS256' } } as never } }, undefined, /jwt: expected array/],
    [{ auth: { jwt: [{ secret: SECRET, algorithm: 'HS256' }] as never } }, undefined, /jwt\["0"\]\.name: is required/],
    [{ middleware: { gzip: true } }, 'GATEHOUSE_CORE_UNKNOWN_COMPONENT', /Unknown component "gzip"/],
    [{ auth: { jwt: [{ name: 'main', secret: 'short', algorithm: 'HS256' }] } }, 'GATEHOUSE_AUTH_INVALID_CONFIG', /jwt\.main: an HS256 secret must be at least 32 bytes/],
    [{ users: { 'a:b': { password: 'x' } } }, OPTIONS, /^users\.a:b: identity must be/],
    [{ users: { alice: { tags: 'x' } as never } }, OPTIONS, /^users\.alice: give exactly one of password or passwordHash$/],
    [{ users: { alice: { password: '' } } }, OPTIONS, /^users\.alice: password must be 1–1024 characters$/],
    [{ tokens: { ci: { key: 'not-a-key' } } }, OPTIONS, /^tokens\.ci: a key must look like gak_/],
    [{ middleware: { session: false } }, 'GATEHOUSE_SERVER_SESSION_REQUIRED', /needs the session component/]
  ]
  for (const [options, code, message] of cases) {
    const server = new AppServer({ logger: false, ...options })
    await t.rejects(server.ready(), { ...(code === undefined ? {} : { code }), message }, JSON.stringify(Object.keys(options ?? {})))
    await server.close()
  }
})

test('a short adminPassword is a coded boot error that never shows the value', async (t) => {
  const server = new AppServer({ adminPassword: 'short', logger: false })
  await t.rejects(server.ready(), { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: 'adminPassword: The password must be at least 8 characters long. (rule: min-length)' })
  await server.close()
})

test('RoutedApplication lists its routes; @route checks its path', async (t) => {
  t.same(new Shop().routes, [{ path: '/orders', method: 'GET' }, { path: '/orders', method: 'POST' }, { path: '/', method: 'GET' }])
  t.throws(() => route('orders'), { code: 'GATEHOUSE_SERVER_INVALID_ROUTE', message: 'Invalid @route: the path must start with "/", got "orders"' })
})

test('server.register adds routes inside the chain; too late is an error', async (t) => {
  const server = new AppServer({ logger: false, users: { alice: { password: 'alice-pass', tags: 'ops' } }, login: true })
  t.teardown(() => server.close())
  server.register(async (app) => { app.get('/extra', { authRule: 'ops' }, async (req) => ({ for: req.scope.auth?.identity })) })
  const nav = await server.inject({ url: '/extra', headers: { accept: 'text/html' } })
  t.equal(nav.statusCode, 302, 'the errors component (login negotiation) covers it')
  const cookie = String((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })).headers['set-cookie']).split(';')[0]!
  t.same((await server.inject({ url: '/extra', headers: { cookie } })).json(), { for: 'alice' })
  t.throws(() => server.register(async () => {}), { code: 'GATEHOUSE_SERVER_REGISTER_TOO_LATE', message: /before the server is ready/ })
})

test('a rule on a route added to server.fastify before the chain is a boot error, never open', async (t) => {
  const server = new AppServer({ logger: false })
  t.teardown(() => server.close())
  server.fastify.get('/early', { config: { authRule: 'ops' } }, async () => 'open!')
  await t.rejects(server.inject('/early'), { code: 'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE', message: /^authRule cannot be enforced on GET \/early, HEAD \/early:/ })
})

test('the default logger: info, to stdout, and no secret in what it writes (issue 14)', async (t) => {
  const { spawn } = await import('node:child_process')
  const { fileURLToPath } = await import('node:url')
  const { JWT_SECRET, SECRETS } = await import('./fixtures/default-logger.secrets.js')
  const fixture = fileURLToPath(new URL('./fixtures/default-logger.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', fixture])
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => { stdout += c })
  child.stderr.on('data', (c) => { stderr += c })
  const code = await new Promise((resolve) => child.on('close', resolve))
  t.equal(code, 0, stderr)
  t.match(stderr, /^level=info$/m, 'info unless told otherwise')
  t.match(stderr, /^statuses=200,200,200,401,200,200,200,401,403,200,401,404$/m, 'every request was answered as expected')
  const sessionId = /^session=(\S+)$/m.exec(stderr)?.[1]
  t.ok(sessionId !== undefined && sessionId.length >= 20, 'the session id is known to the test')
  const lines = stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { level: number, msg: string })
  t.ok(lines.length >= 24, 'request lines are written')
  t.ok(lines.every((line) => line.level >= 30), 'nothing below info')
  t.ok(lines.some((line) => line.msg === 'incoming request') && lines.some((line) => line.msg === 'request completed'))
  for (const [name, secret] of Object.entries({ ...SECRETS, jwtSecret: JWT_SECRET, sessionId: sessionId! })) {
    t.notOk(stdout.includes(secret), `no log line holds the ${name}`)
  }
})
