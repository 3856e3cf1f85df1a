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
    primary: new Shop(),
    apps: { '/slow': slow },
    auth: { basic: { root: { password: 'root-pass', tags: 'admin' } }, bearer: { ci: { token: 'ci-token', tags: 'ops' } }, jwt: [{ secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags' }] },
    users: { alice: { password: 'alice-pass', tags: 'ops' } },
    tokens: { deployer: { key: 'gak_00000000000000aa_' + 'd'.repeat(43), tags: 'ops' } },
    adminPassword: 'admin-password',
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

test('SUPERADMIN: the bootstrapped admin manages users and tokens; nobody else can', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const login = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: 'admin-password' } })
  t.same(login.json().tags, ['SUPERADMIN'])
  const cookie = String(login.headers['set-cookie']).split(';')[0]!
  const as = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, who = cookie) =>
    server.inject({ method, url, headers: { cookie: who }, ...(payload === undefined ? {} : { payload }) })

  const users = await as('GET', '/_server/users')
  t.same(users.json().users.map((u: { identity: string }) => u.identity).sort(), ['admin', 'alice'])
  t.notMatch(users.body, /scrypt|passwordHash|alice-pass/)
  const created = await as('POST', '/_server/users', { identity: 'bob', password: 'bob-pass', tags: 'ops' })
  t.equal(created.statusCode, 201)
  t.match(created.json(), { user: { identity: 'bob', tags: ['ops'], enabled: true } })
  t.equal((await as('POST', '/_server/users', { identity: 'bob', password: 'x' })).statusCode, 400, 'an existing identity')
  t.equal((await as('POST', '/_server/users', { identity: 'eve' })).statusCode, 400, 'no password')
  t.match((await as('PATCH', '/_server/users/bob', { enabled: false, tags: ['ops', 'night'] })).json(), { user: { enabled: false, tags: ['ops', 'night'] } })
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'bob', password: 'bob-pass' } })).statusCode, 401, 'disabled')
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
  const server = new AppServer({ users, adminPassword: 'new-password' })
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

test('boot errors surface from ready()', async (t) => {
  const cases: Array<[ConstructorParameters<typeof AppServer>[0], RegExp]> = [
    [{ adminPassword: 'short' }, /adminPassword must be a string of at least 8 characters/],
    [{ apps: { '/': new Shop() } }, /a mount prefix must start with "\/" and not be "\/"/],
    [{ auth: { jwt: { main: { secret: SECRET, algorithm: 'HS256' } } as never } }, /auth\.jwt is a list of verifiers in the server form/],
    [{ middleware: { gzip: true } }, /Unknown component "gzip"/],
    [{ auth: { jwt: [{ secret: 'short', algorithm: 'HS256' }] } }, /jwt\.0: an HS256 secret must be at least 32 bytes/],
    [{ users: { 'a:b': { password: 'x' } } }, /^users\.a:b: identity must be/],
    [{ users: { alice: { tags: 'x' } as never } }, /^users\.alice: password must be 1–1024 characters$/],
    [{ tokens: { ci: { key: 'not-a-key' } } }, /^tokens\.ci: a key must look like gak_/],
    [{ middleware: { session: false } }, /needs the session component/]
  ]
  for (const [options, message] of cases) {
    const server = new AppServer(options)
    await t.rejects(server.ready(), message, JSON.stringify(Object.keys(options ?? {})))
    await server.close()
  }
})

test('RoutedApplication lists its routes; @route checks its path', async (t) => {
  t.same(new Shop().routes, [{ path: '/orders', method: 'GET' }, { path: '/orders', method: 'POST' }, { path: '/', method: 'GET' }])
  t.throws(() => route('orders'), /must start with "\/"/)
})

test('server.register adds routes inside the chain; too late is an error', async (t) => {
  const server = new AppServer({ users: { alice: { password: 'alice-pass', tags: 'ops' } }, login: true })
  t.teardown(() => server.close())
  server.register(async (app) => { app.get('/extra', { authRule: 'ops' }, async (req) => ({ for: req.scope.auth?.identity })) })
  const nav = await server.inject({ url: '/extra', headers: { accept: 'text/html' } })
  t.equal(nav.statusCode, 302, 'the errors component (login negotiation) covers it')
  const cookie = String((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })).headers['set-cookie']).split(';')[0]!
  t.same((await server.inject({ url: '/extra', headers: { cookie } })).json(), { for: 'alice' })
  t.throws(() => server.register(async () => {}), /before the server is ready/)
})

test('a rule on a route added to server.fastify before the chain is a boot error, never open', async (t) => {
  const server = new AppServer({})
  t.teardown(() => server.close())
  server.fastify.get('/early', { config: { authRule: 'ops' } }, async () => 'open!')
  await t.rejects(server.inject('/early'), { code: 'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE', message: /^authRule cannot be enforced on GET \/early, HEAD \/early:/ })
})
