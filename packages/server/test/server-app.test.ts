import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { allComponents, PasswordMethod, serverApp } from '@fastify-gatehouse/server'

const FAST = { N: 1024, r: 8, p: 1 }

async function build (options: { now?: () => number, maxAttempts?: number } = {}) {
  const users = new MemoryUserStore({ scrypt: FAST })
  await users.add('alice', { password: 'correct horse', tags: 'member,admin' })
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: true } }, { components: allComponents })
  await app.register(serverApp, {
    prefix: '/_server',
    methods: [new PasswordMethod({ users, maxAttempts: options.maxAttempts ?? 5, backoff: 30, ...(options.now === undefined ? {} : { now: options.now }) })]
  })
  app.get('/whoami', async (req) => ({ auth: req.scope.auth }))
  await app.ready()
  return { app, users }
}

const login = (app: Awaited<ReturnType<typeof build>>['app'], identity: string, password: string, extra: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/_server/login', payload: { identity, password }, headers: extra })
const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0]!

test('POST /_server/login: 200 with identity and tags; the session id only in the cookie unless asked for', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const res = await login(app, 'alice', 'correct horse')
  t.equal(res.statusCode, 200)
  t.same(res.json(), { identity: 'alice', tags: ['member', 'admin'] }, 'no session_id in the body (page JavaScript never holds it)')
  t.equal(res.headers['cache-control'], 'no-store')
  t.match(res.headers['set-cookie'], /^session_id=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/)
  const me = await app.inject({ url: '/whoami', headers: { cookie: cookieOf(res) } })
  t.same(me.json().auth, { identity: 'alice', tags: ['member', 'admin'], backend: 'session' })

  const asked = await app.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'correct horse', return_session_id: true } })
  t.equal(asked.statusCode, 200)
  const body = asked.json()
  t.same(Object.keys(body), ['identity', 'tags', 'session_id'], 'an API client that asks gets the id')
  t.equal(cookieOf(asked), `session_id=${body.session_id}`, 'the body names the id the cookie carries')
  t.equal(asked.headers['cache-control'], 'no-store')
})

test('wrong credentials: the same 401 for unknown and known identities; missing fields 400', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const known = await login(app, 'alice', 'wrong')
  const unknown = await login(app, 'mallory', 'wrong')
  for (const res of [known, unknown]) {
    t.equal(res.statusCode, 401)
    t.same(res.json(), { statusCode: 401, code: 'GATEHOUSE_SERVER_INVALID_LOGIN', error: 'Unauthorized', message: 'Invalid identity or password' })
    t.notOk(res.headers['set-cookie'], 'no session for a failed login')
  }
  for (const payload of [{}, { identity: 'alice' }, { password: 'x' }, { identity: '', password: 'x' }, { identity: 3, password: 'x' }, { identity: 'a'.repeat(201), password: 'x' }]) {
    const res = await app.inject({ method: 'POST', url: '/_server/login', payload })
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 40))
    t.equal(res.json().code, 'GATEHOUSE_SERVER_BAD_LOGIN_REQUEST')
  }
  const text = await app.inject({ method: 'POST', url: '/_server/login', payload: 'identity=alice', headers: { 'content-type': 'text/plain' } })
  t.equal(text.statusCode, 400, 'a text body carries no fields')
  const xml = await app.inject({ method: 'POST', url: '/_server/login', payload: '<x/>', headers: { 'content-type': 'application/xml' } })
  t.equal(xml.statusCode, 415, 'an unknown body type is refused before any check')
})

test('lockout over HTTP with a fake clock: 429 with Retry-After, the backoff doubles, success resets', async (t) => {
  let now = 1_000_000
  const { app } = await build({ now: () => now })
  t.teardown(() => app.close())
  for (let i = 1; i <= 5; i++) t.equal((await login(app, 'alice', 'wrong')).statusCode, 401, `failure ${i}`)
  const locked = await login(app, 'alice', 'correct horse')
  t.equal(locked.statusCode, 429, 'locked: even the right password is refused')
  t.equal(locked.headers['retry-after'], '30')
  t.same(locked.json(), { statusCode: 429, code: 'GATEHOUSE_SERVER_LOCKED', error: 'Too Many Requests', message: 'Too many failed sign-ins; try again in 30 s' })
  now += 10_000
  t.equal((await login(app, 'alice', 'wrong')).headers['retry-after'], '20', 'locked attempts do not extend the lock')
  now += 20_000
  t.equal((await login(app, 'alice', 'wrong')).statusCode, 401, 'the lock ended; this failure is counted')
  t.equal((await login(app, 'alice', 'wrong')).headers['retry-after'], '60', 'the next lock is twice as long')
  now += 60_000
  t.equal((await login(app, 'alice', 'correct horse')).statusCode, 200, 'success')
  t.equal((await login(app, 'alice', 'wrong')).statusCode, 401, 'and the count started over')
})

test('unknown identities lock like known ones; one address cannot lock many accounts cheaply', async (t) => {
  const now = 1_000_000
  const { app } = await build({ now: () => now, maxAttempts: 2 })
  t.teardown(() => app.close())
  for (let i = 0; i < 2; i++) await login(app, 'ghost', 'x')
  t.equal((await login(app, 'ghost', 'x')).statusCode, 429, 'an unknown identity is locked too')
  // From one address, failures across identities lock the address after 4 × maxAttempts.
  for (let i = 0; i < 6; i++) await login(app, `user${i}`, 'x', {})
  const fromSame = await login(app, 'alice', 'correct horse')
  t.equal(fromSame.statusCode, 429, 'the address is locked')
  const elsewhere = await app.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'correct horse' }, remoteAddress: '198.51.100.7' })
  t.equal(elsewhere.statusCode, 200, 'alice herself is not locked out from another address')
})

test('form login without JavaScript: 303 to the validated next', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const form = (body: string) => app.inject({ method: 'POST', url: '/_server/login', payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' } })
  const ok = await form('identity=alice&password=correct+horse&next=%2Forders%3Fpage%3D2')
  t.equal(ok.statusCode, 303)
  t.equal(ok.headers.location, '/orders?page=2')
  t.match(ok.headers['set-cookie'], /^session_id=/)
  const evil = await form('identity=alice&password=correct+horse&next=%2F%2Fevil.example')
  t.equal(evil.headers.location, '/', 'a hostile next lands on /')
  // D-SERVER-54: a failure answers the login page itself, the identity typed kept (escaped), never the password.
  const wrong = await form('identity=alice&password=nope-not-it&next=%2Forders')
  t.equal(wrong.statusCode, 401, 'a wrong password: the page, not a redirect')
  t.notOk(wrong.headers.location)
  t.notOk(wrong.headers['set-cookie'])
  t.match(wrong.headers['content-type'], /^text\/html; charset=utf-8/)
  t.match(wrong.headers['content-security-policy'], /script-src 'self'/, 'the pages\' headers')
  t.equal(wrong.headers['cache-control'], 'no-store')
  t.match(wrong.body, '<p id="error" role="alert" aria-live="polite" tabindex="-1" autofocus>Invalid identity or password.</p>')
  t.match(wrong.body, '<input id="identity" name="identity" autocomplete="username" required value="alice">', 'the identity is kept')
  t.match(wrong.body, '<input id="password" name="password" type="password" autocomplete="current-password" required>', 'the password field is empty')
  t.match(wrong.body, '<input type="hidden" name="next" value="/orders">', 'and next')
  t.notMatch(wrong.body, 'nope-not-it', 'the password is nowhere in the page')

  const hostile = '"><script>alert(1)</script>&amp;\'x'
  const escaped = await form(`identity=${encodeURIComponent(hostile)}&password=hunter2-secret`)
  t.equal(escaped.statusCode, 401)
  t.match(escaped.body, 'required value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;&#39;x">', 'the identity is escaped in its attribute')
  t.notMatch(escaped.body, '<script>alert', 'nothing of it is markup')
  t.notMatch(escaped.body, 'hunter2-secret')

  const missing = await form('identity=alice')
  t.equal(missing.statusCode, 400)
  t.match(missing.body, '>Enter your identity and password.</p>')
  t.match(missing.body, 'required value="alice">')
  const none = await form('password=x')
  t.match(none.body, '<input id="identity" name="identity" autocomplete="username" required>', 'no identity sent: an empty field')
  const tooLong = await form(`identity=${'a'.repeat(201)}&password=x`)
  t.equal(tooLong.statusCode, 400)
  t.notMatch(tooLong.body, 'a'.repeat(201), 'an identity the login refuses is not shown back')

  for (let i = 0; i < 4; i++) await form('identity=alice&password=nope')
  const locked = await form('identity=alice&password=correct+horse')
  t.equal(locked.statusCode, 429, 'locked: the page with the wait')
  t.equal(locked.headers['retry-after'], '30')
  t.match(locked.body, '>Too many failed sign-ins. Try again in 30 seconds.</p>')
  t.match(locked.body, 'required value="alice">')
  t.notMatch(locked.body, 'correct horse')
  t.notMatch(locked.body, 'correct+horse')
})

test('logout destroys the session and clears the cookie', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const cookie = cookieOf(await login(app, 'alice', 'correct horse'))
  const out = await app.inject({ method: 'POST', url: '/_server/logout', headers: { cookie } })
  t.equal(out.statusCode, 200)
  t.same(out.json(), { status: 'ok' })
  t.match(out.headers['set-cookie'], /^session_id=; Max-Age=0/)
  t.same((await app.inject({ url: '/whoami', headers: { cookie } })).json(), { auth: null })
})

test('login_methods lists the password form, never secrets', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const res = await app.inject('/_server/login_methods')
  t.same(res.json(), { methods: [{ id: 'password', kind: 'form', label: 'Password', action: '/_server/login' }] })
})

test('boot errors', async (t) => {
  const users = new MemoryUserStore({ scrypt: FAST })
  const noSession = Fastify()
  await t.rejects(async () => { await noSession.register(serverApp, { prefix: '/_server', methods: [] }).ready() }, { code: 'GATEHOUSE_SERVER_SESSION_REQUIRED', message: /needs the session component/ })
  await noSession.close()
  t.throws(() => new PasswordMethod({ users: {} as never }), { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: 'users: PasswordMethod needs a UserStore' })
  t.throws(() => new PasswordMethod({ users, maxAttempts: 0 }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'serverApp.login.maxAttempts: expected integer to be greater or equal to 1' })
  t.throws(() => new PasswordMethod({ users, store: {} as never }), { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: /^serverApp\.login\.store: must be a LockoutStore/ })
  const twice = Fastify()
  await middlewareChain(twice, { middleware: { session: true } }, { components: allComponents })
  await t.rejects(async () => { await twice.register(serverApp, { methods: [new PasswordMethod({ users }), new PasswordMethod({ users })] }).ready() }, { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: 'methods: login method password is given twice' })
  await twice.close()
})
