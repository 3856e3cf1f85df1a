import { test } from 'tap'
import { HttpError, Redirect } from '@fastify-gatehouse/core'
import { build } from './helpers/build.js'

test('headers of errors that are not HttpErrors never reach the response', async (t) => {
  const { app } = await build({}, (app) => {
    app.get('/upstream', async () => {
      throw Object.assign(new Error('upstream said no'), { statusCode: 403, headers: { 'set-cookie': 'evil=1; Domain=example.com', location: 'https://evil.example', 'access-control-allow-origin': '*' } })
    })
  })
  t.teardown(() => app.close())
  const res = await app.inject('/upstream')
  t.equal(res.statusCode, 403)
  for (const header of ['set-cookie', 'location', 'access-control-allow-origin']) t.notOk(res.headers[header], header)
})

test('header values and redirect targets must be visible ASCII', async (t) => {
  const code = 'GATEHOUSE_CORE_INVALID_HTTP_ERROR'
  t.throws(() => new Redirect('/caf€'), { code, message: /percent-encode/ })
  t.throws(() => new Redirect('/a b'), { code })
  t.throws(() => new HttpError(429, 'x', { headers: { 'retry-after': '5€' } }), { code })
  t.throws(() => new HttpError(400, 'x', { headers: { 'bad name': 'v' } }), { code })
  t.equal(new Redirect(encodeURI('/café')).location, '/caf%C3%A9')
})

test('values that cannot be printed, and failures while answering, are a bare 500', async (t) => {
  const { app, logs } = await build({}, (app) => {
    app.get('/null-proto', async () => { throw Object.create(null) })
    app.get('/hostile', async () => { throw { get statusCode () { throw new Error('getter exploded') } } }) // eslint-disable-line no-throw-literal -- the test is what a non-Error throw becomes
  })
  t.teardown(() => app.close())
  for (const url of ['/null-proto', '/hostile']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 500, url)
    t.same(res.json(), { statusCode: 500, code: 'GATEHOUSE_ERRORS_INTERNAL', error: 'Internal Server Error', message: 'Internal Server Error' }, url)
    t.notMatch(res.body, /exploded|primitive|ERR_/)
  }
  t.ok(logs.some((l) => l.msg === 'errors: could not answer an error; sending a bare 500'))
})
