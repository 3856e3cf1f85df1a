import { test } from 'tap'
import Fastify from 'fastify'
import { HttpError, Redirect } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { build } from './helpers/build.js'

const SECRET = 'db password is hunter2'

test('HttpError becomes its status, body, code and headers', async (t) => {
  const { app } = await build({}, (app) => {
    app.get('/locked', async () => {
      throw new HttpError(429, 'Too many attempts', { headers: { 'Retry-After': '30' }, code: 'GATEHOUSE_LOCKED' })
    })
  })
  t.teardown(() => app.close())
  const res = await app.inject('/locked')
  t.equal(res.statusCode, 429)
  t.equal(res.headers['retry-after'], '30')
  t.match(res.headers['content-type'], /^application\/json/)
  t.same(res.json(), { statusCode: 429, code: 'GATEHOUSE_LOCKED', error: 'Too Many Requests', message: 'Too many attempts' })
})

test('an HttpError 5xx keeps its detail: it was written for the caller', async (t) => {
  const { app } = await build({}, (app) => {
    app.get('/', async () => { throw new HttpError(503, 'Session store unavailable', { cause: new Error(SECRET) }) })
  })
  t.teardown(() => app.close())
  const res = await app.inject('/')
  t.equal(res.statusCode, 503)
  t.same(res.json(), { statusCode: 503, error: 'Service Unavailable', message: 'Session store unavailable' })
  t.notMatch(res.body, /hunter2/)
})

test("Fastify's own errors keep their status, message and code", async (t) => {
  const { app } = await build({}, (app) => {
    app.post('/items', { schema: { body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } }, async () => 'ok')
  })
  t.teardown(() => app.close())
  const invalid = await app.inject({ method: 'POST', url: '/items', payload: {} })
  t.equal(invalid.statusCode, 400)
  t.same(invalid.json(), { statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: "body must have required property 'name'" })
  const badJson = await app.inject({ method: 'POST', url: '/items', payload: '{', headers: { 'content-type': 'application/json' } })
  t.equal(badJson.statusCode, 400)
  t.equal(badJson.json().code, 'FST_ERR_CTP_INVALID_JSON_BODY')
  const media = await app.inject({ method: 'POST', url: '/items', payload: 'x', headers: { 'content-type': 'application/x-nope' } })
  t.equal(media.statusCode, 415)
  t.equal(media.json().error, 'Unsupported Media Type')
})

test('an unhandled error is a 500 that leaks nothing, and is logged', async (t) => {
  const { app, logs } = await build({}, (app) => {
    app.get('/throw', async () => { throw new Error(SECRET) })
    app.get('/coded', async () => { throw Object.assign(new Error(SECRET), { code: 'ECONNREFUSED', statusCode: 502 }) })
    app.get('/weird-status', async () => { throw Object.assign(new Error(SECRET), { statusCode: 200 }) })
  })
  t.teardown(() => app.close())
  const res = await app.inject('/throw')
  t.equal(res.statusCode, 500)
  t.same(res.json(), { statusCode: 500, code: 'GATEHOUSE_ERRORS_INTERNAL', error: 'Internal Server Error', message: 'Internal Server Error' })
  const coded = await app.inject('/coded')
  t.equal(coded.statusCode, 502)
  t.same(coded.json(), { statusCode: 502, code: 'GATEHOUSE_ERRORS_INTERNAL', error: 'Bad Gateway', message: 'Bad Gateway' }, 'not its own code, no message for an unexposed 5xx')
  const weird = await app.inject('/weird-status')
  t.equal(weird.statusCode, 500, 'a non-error status on an error is a 500')
  for (const r of [res, coded, weird]) t.notMatch(r.body, /hunter2|stack/)
  const logged = logs.filter((l) => l.level === 50 && l.err?.message === SECRET)
  t.equal(logged.length, 3, 'the real error is logged at error level')
})

test('values that are not errors are 500s', async (t) => {
  const { app } = await build({}, (app) => {
    app.get('/string', async () => { throw 'boom' }) // eslint-disable-line no-throw-literal -- the test is what a non-Error throw becomes
    app.get('/null', async () => { throw null }) // eslint-disable-line no-throw-literal -- the test is what a non-Error throw becomes
    app.get('/object', async () => { throw { statusCode: 418, message: 'teapot' } }) // eslint-disable-line no-throw-literal -- the test is what a non-Error throw becomes
  })
  t.teardown(() => app.close())
  t.same((await app.inject('/string')).json(), { statusCode: 500, code: 'GATEHOUSE_ERRORS_INTERNAL', error: 'Internal Server Error', message: 'Internal Server Error' })
  const nul = await app.inject('/null')
  t.equal(nul.statusCode, 500)
  t.same((await app.inject('/object')).json(), { statusCode: 418, error: "I'm a Teapot", message: 'teapot' })
})

test('debug adds the stack to 5xx only', async (t) => {
  const { app } = await build({ debug: true }, (app) => {
    app.get('/throw', async () => { throw new Error(SECRET) })
    app.get('/teapot', async () => { throw new HttpError(418) })
  })
  t.teardown(() => app.close())
  const res = await app.inject('/throw')
  t.equal(res.statusCode, 500)
  t.match(res.json().stack, /^Error: db password is hunter2\n\s+at /)
  const text = await app.inject({ url: '/throw', headers: { accept: 'text/html' } })
  t.match(text.body, /^500 Internal Server Error: Internal Server Error\n\nError: db password/)
  t.notOk('stack' in (await app.inject('/teapot')).json())
})

test('Redirect becomes a 3xx with Location and no body', async (t) => {
  const { app } = await build({}, (app) => {
    app.get('/old', async () => { throw new Redirect('/new') })
    app.get('/moved', async () => { throw new Redirect('https://example.com/x', 301) })
    app.addHook('onRequest', async (req) => { if (req.url === '/hooked') throw new Redirect('/elsewhere', 303) })
  })
  t.teardown(() => app.close())
  const res = await app.inject('/old')
  t.equal(res.statusCode, 302)
  t.equal(res.headers.location, '/new')
  t.equal(res.body, '')
  const moved = await app.inject('/moved')
  t.equal(moved.statusCode, 301)
  t.equal(moved.headers.location, 'https://example.com/x')
  const hooked = await app.inject('/hooked')
  t.equal(hooked.statusCode, 303, 'thrown from a hook too')
  t.equal(hooked.headers.location, '/elsewhere')
})

test('text/plain for callers asking for HTML and not JSON', async (t) => {
  const { app } = await build({}, (app) => { app.get('/nope', async () => { throw new HttpError(403, 'Not yours') }) })
  t.teardown(() => app.close())
  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
  const res = await app.inject({ url: '/nope', headers: { accept: browser } })
  t.equal(res.statusCode, 403)
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(res.headers['x-content-type-options'], 'nosniff')
  t.equal(res.body, '403 Forbidden: Not yours')
  for (const accept of ['application/json', 'text/html, application/json', 'text/html, application/problem+json', '*/*', '', 'text/html;q=0, application/json']) {
    const json = await app.inject({ url: '/nope', headers: { accept } })
    t.match(json.headers['content-type'], /^application\/json/, `accept: ${accept}`)
  }
  const none = await app.inject({ url: '/nope' })
  t.same(none.json(), { statusCode: 403, error: 'Forbidden', message: 'Not yours' })
})

test('unmatched routes go through the same place', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const res = await app.inject('/missing?token=abc')
  t.equal(res.statusCode, 404)
  t.same(res.json(), { statusCode: 404, code: 'GATEHOUSE_ERRORS_NOT_FOUND', error: 'Not Found', message: 'Route GET:/missing not found' }, 'the query string is not echoed, the code is given')
  const text = await app.inject({ url: '/missing', headers: { accept: 'text/html' } })
  t.equal(text.body, '404 Not Found: Route GET:/missing not found')
})

test('notFound: false leaves unmatched routes to Fastify', async (t) => {
  const { app } = await build({ notFound: false })
  t.teardown(() => app.close())
  const res = await app.inject('/missing?x=1')
  t.equal(res.statusCode, 404)
  t.equal(res.json().message, 'Route GET:/missing?x=1 not found', "Fastify's own 404 handler")
})

test('errors thrown in hooks are handled like handler errors', async (t) => {
  const { app } = await build({}, (app) => {
    app.addHook('onRequest', async (req) => { if (req.url === '/on-request') throw new HttpError(401, 'No credentials') })
    app.addHook('preHandler', async (req) => { if (req.url === '/pre-handler') throw new Error(SECRET) })
    app.addHook('onSend', async (req, _reply, payload) => { if (req.url === '/on-send') throw new HttpError(409, 'Conflict in onSend'); return payload })
    for (const url of ['/on-request', '/pre-handler', '/on-send']) app.get(url, async () => 'ok')
  })
  t.teardown(() => app.close())
  t.same((await app.inject('/on-request')).json(), { statusCode: 401, error: 'Unauthorized', message: 'No credentials' })
  const pre = await app.inject('/pre-handler')
  t.equal(pre.statusCode, 500)
  t.notMatch(pre.body, /hunter2/)
  t.same((await app.inject('/on-send')).json(), { statusCode: 409, error: 'Conflict', message: 'Conflict in onSend' })
})

test('error responses keep the headers other components set', async (t) => {
  const { app } = await build({}, (app) => {
    app.addHook('onRequest', async (_req, reply) => {
      reply.header('access-control-allow-origin', 'https://app.example.com')
      reply.header('set-cookie', 'session_id=abc; HttpOnly')
    })
    app.get('/', async () => { throw new HttpError(400, 'Bad input', { headers: { 'content-type': 'text/evil', 'content-length': '1' } }) })
  })
  t.teardown(() => app.close())
  const res = await app.inject('/')
  t.equal(res.statusCode, 400)
  t.equal(res.headers['access-control-allow-origin'], 'https://app.example.com')
  t.equal(res.headers['set-cookie'], 'session_id=abc; HttpOnly')
  t.match(res.headers['content-type'], /^application\/json/, 'an error cannot set the body headers')
  t.equal(res.json().message, 'Bad input')
})

test('4xx are logged at info without a stack', async (t) => {
  const { app, logs } = await build({}, (app) => { app.get('/', async () => { throw new HttpError(404, 'No such order') }) })
  t.teardown(() => app.close())
  await app.inject('/')
  const line = logs.find((l) => l.msg === 'No such order')
  t.equal(line?.level, 30)
  t.equal(line?.statusCode, 404)
  t.notOk(line?.err)
})

test('registered alone with app.register', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(errorsPlugin, { login: true })
  app.get('/private', async () => { throw new HttpError(401) })
  const res = await app.inject({ url: '/private', headers: { accept: 'text/html' } })
  t.equal(res.statusCode, 302)
  t.equal(res.headers.location, '/_server/login_page?next=%2Fprivate')
})

test('bad options fail at boot with the path', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ debgu: true }, 'errors options.debgu: unknown option'],
    [{ debug: 'yes' }, 'errors options.debug: expected boolean'],
    [{ loginPage: 'login' }, 'errors options.loginPage: expected string to match'],
    [{ loginPage: '//evil.example' }, 'errors options.loginPage: expected string to match'],
    [{ realm: 'a\r\nb' }, 'errors options.realm: expected string to match']
  ]
  for (const [options, message] of cases) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(errorsPlugin, options).ready() },
      { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: new RegExp('^' + message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) })
    await app.close()
  }
})
