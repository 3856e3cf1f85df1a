// Issue 13, item 8: unknown body fields were silently dropped (Fastify's
// default Ajv has removeAdditional), so `POST /_server/tokens
// {"label":"x","expires":"30d"}` issued a key that never expires. Every
// `/_server` body now refuses unknown fields with a 400 naming them, JSON
// and form alike; wrong types and non-object bodies are 400s, never 500s.
import { test } from 'tap'
import type { FastifyInstance, InjectOptions } from 'fastify'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { allComponents, AppServer, serverApp, type AuthMethod } from '@fastify-gatehouse/server'
import { hangSignal } from '../../../../test-helpers/wait.js'

const HOST = 'gatehouse.example'
const SAME_ORIGIN = { host: HOST, origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' }
const FORM = 'application/x-www-form-urlencoded'
const KEY = `gak_00000000000000aa_${'d'.repeat(43)}`

function build (): AppServer {
  return new AppServer({
    logger: false,
    users: { alice: { password: 'alice-Pa55word', tags: 'member' } },
    tokens: { deployer: { key: KEY, tags: 'ops' } },
    adminPassword: 'keeper-Pa55word',
    login: true
  })
}

async function signIn (server: AppServer, identity: string, password: string): Promise<string> {
  const res = await server.inject({ method: 'POST', url: '/_server/login', headers: SAME_ORIGIN, payload: { identity, password } })
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`)
  return String(res.headers['set-cookie']).split(';')[0]!
}

const unknown = (message: string) => ({ statusCode: 400, code: 'GATEHOUSE_SERVER_UNKNOWN_FIELD', error: 'Bad Request', message })

test('admin API: an unknown field is refused, naming it, and nothing is changed', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const admin = await signIn(server, 'admin', 'keeper-Pa55word')
  const as = (request: InjectOptions) => server.inject({ ...request, headers: { ...SAME_ORIGIN, cookie: admin, ...request.headers } })
  const tokensBefore = (await as({ url: '/_server/tokens' })).json().tokens.length as number

  const expires = await as({ method: 'POST', url: '/_server/tokens', payload: { label: 'x', expires: '30d' } })
  t.equal(expires.statusCode, 400, 'the finding: a key that never expires is not issued')
  t.same(expires.json(), unknown('unknown field "expires" in body'))
  t.notOk(expires.headers['set-cookie'])
  const several = await as({ method: 'POST', url: '/_server/tokens', payload: { label: 'x', expires: '30d', scope: 'all' } })
  t.same(several.json(), unknown('unknown fields "expires", "scope" in body'))
  const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, 1]))
  t.same((await as({ method: 'POST', url: '/_server/tokens', payload: { label: 'x', ...many } })).json(),
    unknown('unknown fields "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9" and 2 more in body'))
  t.equal((await as({ url: '/_server/tokens' })).json().tokens.length, tokensBefore, 'no key was issued')

  const addUser = await as({ method: 'POST', url: '/_server/users', payload: { identity: 'bob', password: 'night-Pa55word', admin: true } })
  t.same(addUser.json(), unknown('unknown field "admin" in body'))
  t.equal(addUser.statusCode, 400)
  t.notOk((await as({ url: '/_server/users' })).json().users.some((u: { identity: string }) => u.identity === 'bob'), 'bob was not created')

  const patch = await as({ method: 'PATCH', url: '/_server/users/alice', payload: { enabled: false, role: 'x' } })
  t.same(patch.json(), unknown('unknown field "role" in body'))
  t.equal((await signIn(server, 'alice', 'alice-Pa55word')).startsWith('session_id='), true, 'alice is still enabled')

  const keyId = KEY.slice(4, 20)
  for (const [method, url] of [['POST', `/_server/tokens/${keyId}/revoke`], ['DELETE', `/_server/tokens/${keyId}`], ['DELETE', '/_server/users/alice']] as const) {
    const res = await as({ method, url, payload: { force: true } })
    t.equal(res.statusCode, 400, `${method} ${url} takes no fields`)
    t.same(res.json(), unknown('unknown field "force" in body'))
  }
  t.equal((await server.inject({ url: '/_server/login_methods', headers: { authorization: `Bearer ${KEY}` } })).statusCode, 200, 'the key still works')
  t.ok((await as({ url: '/_server/users' })).json().users.some((u: { identity: string }) => u.identity === 'alice'), 'alice still exists')

  // Form bodies are not taken at all by the admin API (a cross-site page can post one unasked).
  const form = await as({ method: 'POST', url: '/_server/tokens', headers: { 'content-type': FORM }, payload: 'label=x&expires=30d' })
  t.same(form.json(), { statusCode: 415, code: 'GATEHOUSE_SERVER_FORM_NOT_ACCEPTED', error: 'Unsupported Media Type', message: 'The admin API takes JSON bodies (application/json), not forms' })
})

test('admin API: wrong types, non-object and empty bodies are 400s, never 500s', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const admin = await signIn(server, 'admin', 'keeper-Pa55word')
  const headers = { ...SAME_ORIGIN, cookie: admin }
  const json = { ...headers, 'content-type': 'application/json' }
  const cases: Array<[string, InjectOptions, string, RegExp]> = [
    ['label a number', { method: 'POST', url: '/_server/tokens', headers, payload: { label: 5 } }, 'FST_ERR_VALIDATION', /^body\/label must be string$/],
    ['tags an object', { method: 'POST', url: '/_server/tokens', headers, payload: { label: 'x', tags: { a: 1 } } }, 'FST_ERR_VALIDATION', /^body\/tags must be string/],
    ['expiresAt not a date', { method: 'POST', url: '/_server/tokens', headers, payload: { label: 'x', expiresAt: 'soon' } }, 'FST_ERR_VALIDATION', /^body\/expiresAt must match format "date-time"$/],
    ['enabled a string (not converted)', { method: 'PATCH', url: '/_server/users/alice', headers, payload: { enabled: 'false' } }, 'FST_ERR_VALIDATION', /^body\/enabled must be boolean$/],
    ['an array body', { method: 'POST', url: '/_server/tokens', headers: json, payload: '[]' }, 'FST_ERR_VALIDATION', /^body must be object$/],
    ['a string body', { method: 'POST', url: '/_server/users', headers: json, payload: '"bob"' }, 'FST_ERR_VALIDATION', /^body must be object$/],
    ['a null body', { method: 'POST', url: '/_server/tokens', headers: json, payload: 'null' }, 'FST_ERR_VALIDATION', /^body must be object$/],
    ['no body', { method: 'POST', url: '/_server/tokens', headers }, 'FST_ERR_VALIDATION', /^body must be object$/],
    // An empty JSON body is no body (D-SERVER-53): refused as one.
    ['an empty JSON body', { method: 'POST', url: '/_server/tokens', headers: json, payload: '' }, 'FST_ERR_VALIDATION', /^body must be object$/],
    ['an empty PATCH', { method: 'PATCH', url: '/_server/users/alice', headers, payload: {} }, 'FST_ERR_VALIDATION', /^body must NOT have fewer than 1 properties$/],
    ['an array to a route without fields', { method: 'POST', url: '/_server/logout', headers: json, payload: '[1]' }, 'FST_ERR_VALIDATION', /^body must be object,null$/]
  ]
  for (const [what, request, code, message] of cases) {
    const res = await server.inject(request)
    t.equal(res.statusCode, 400, what)
    t.equal(res.json().code, code, what)
    t.match(res.json().message, message, what)
  }
})

test('login: only identity, password and next; JSON, form and browser form alike', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const login = (headers: Record<string, string>, payload: string | object) =>
    server.inject({ method: 'POST', url: '/_server/login', headers: { ...SAME_ORIGIN, ...headers }, payload })

  const json = await login({}, { identity: 'alice', password: 'alice-Pa55word', remember: true })
  t.same(json.json(), unknown('unknown field "remember" in body'))
  t.notOk(json.headers['set-cookie'], 'not signed in')
  const form = await login({ 'content-type': FORM, accept: 'application/json' }, 'identity=alice&password=alice-Pa55word&remember=1')
  t.same(form.json(), unknown('unknown field "remember" in body'))
  t.notOk(form.headers['set-cookie'])
  // A browser form carrying a field the login page never sends did not come
  // from the page: a plain 400, not a redirect back to it.
  const browser = await login({ 'content-type': FORM, accept: 'text/html' }, 'identity=alice&password=alice-Pa55word&next=%2F&remember=1')
  t.equal(browser.statusCode, 400)
  t.match(browser.headers['content-type'], /^text\/plain/)
  t.equal(browser.body, '400 Bad Request: unknown field "remember" in body')
  t.notOk(browser.headers.location)
  t.notOk(browser.headers['set-cookie'])

  // A field given twice: one value would be ignored, so neither is taken.
  for (const accept of ['application/json', 'text/html']) {
    const twice = await login({ 'content-type': FORM, accept }, 'identity=alice&password=alice-Pa55word&identity=admin')
    t.equal(twice.statusCode, 400, `duplicate field, accept ${accept}`)
    t.notOk(twice.headers['set-cookie'])
    if (accept === 'application/json') t.same(twice.json(), { statusCode: 400, code: 'GATEHOUSE_SERVER_DUPLICATE_FIELD', error: 'Bad Request', message: 'duplicate field "identity" in body' })
  }

  // What the login page sends still works: its form (no JavaScript) and its script.
  const page = await login({ 'content-type': FORM, accept: 'text/html' }, 'next=%2Fhome&identity=alice&password=alice-Pa55word')
  t.equal(page.statusCode, 303)
  t.equal(page.headers.location, '/home')
  t.ok(page.headers['set-cookie'])
  const script = await login({ accept: 'application/json' }, { identity: 'alice', password: 'alice-Pa55word' })
  t.equal(script.statusCode, 200)

  // Values stay the handler's: a missing or malformed one keeps its code.
  for (const [what, headers, payload] of [
    ['a number identity', {}, { identity: 3, password: 'x' }],
    ['a null body', { 'content-type': 'application/json' }, 'null'],
    ['no body', {}, '']
  ] as const) {
    const res = await login(headers, payload)
    t.equal(res.statusCode, 400, what)
    t.equal(res.json().code, 'GATEHOUSE_SERVER_BAD_LOGIN_REQUEST', what)
  }
  const array = await login({ 'content-type': 'application/json' }, '[]')
  t.equal(array.statusCode, 400)
  t.equal(array.json().code, 'FST_ERR_VALIDATION')
})

test('logout: fields are refused, and the session survives the refused request', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const cookie = await signIn(server, 'alice', 'alice-Pa55word')
  const refused = await server.inject({ method: 'POST', url: '/_server/logout', headers: { ...SAME_ORIGIN, cookie }, payload: { everywhere: true } })
  t.same(refused.json(), unknown('unknown field "everywhere" in body'))
  const out = await server.inject({ method: 'POST', url: '/_server/logout', headers: { ...SAME_ORIGIN, cookie } })
  t.equal(out.statusCode, 200, 'a bodiless logout still works')
  t.same(out.json(), { status: 'ok' })
})

test('over a real socket: the token request with "expires" is a 400 naming it', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const admin = await signIn(server, 'admin', 'keeper-Pa55word')
  const base = await server.serve('127.0.0.1', 0)
  const res = await fetch(`${base}/_server/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: admin },
    body: JSON.stringify({ label: 'x', expires: '30d' }),
    signal: hangSignal()
  })
  t.equal(res.status, 400)
  t.same(await res.json(), unknown('unknown field "expires" in body'))
})

test('the application\'s own routes keep Fastify\'s defaults', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  server.register(async (app) => {
    app.post('/echo', { schema: { body: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } } } }, async (request) => request.body)
  })
  const res = await server.inject({ method: 'POST', url: '/echo', payload: { a: 'x', extra: 1 } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { a: 'x' }, 'removeAdditional as Fastify does it: the app chose that')
})

const method = (register: (app: FastifyInstance) => void): AuthMethod => ({
  id: 'custom',
  describe: () => ({ id: 'custom', kind: 'form', label: 'Custom', action: '/_server/custom' }),
  register
})

async function mount (app: FastifyInstance, m: AuthMethod): Promise<FastifyInstance> {
  await middlewareChain(app, { middleware: { session: true } }, { components: allComponents })
  await app.register(serverApp, { prefix: '/_server', methods: [m] })
  return app
}

test('a _server route that would let unknown fields through is a boot error; one without a body schema takes no fields', async (t) => {
  const loose = Fastify()
  t.teardown(() => loose.close())
  await t.rejects(mount(loose, method((app) => { app.post('/loose', { schema: { body: { type: 'object', properties: { a: { type: 'string' } } } } }, async () => 'ok') })),
    { code: 'GATEHOUSE_SERVER_LOOSE_BODY_SCHEMA', message: 'POST /_server/loose: a _server body schema must set additionalProperties: false, so unknown fields are refused' })

  const bodiless = await mount(Fastify(), method((app) => { app.put('/bodiless', async (request) => ({ body: request.body ?? null })) }))
  t.teardown(() => bodiless.close())
  t.same((await bodiless.inject({ method: 'PUT', url: '/_server/bodiless' })).json(), { body: null })
  t.same((await bodiless.inject({ method: 'PUT', url: '/_server/bodiless', payload: { a: 1 } })).json(), unknown('unknown field "a" in body'))
})
