import { test } from 'tap'
import { HttpError } from '@fastify-gatehouse/core'
import { build } from './helpers/build.js'

// Issue 25 item 16: the application's own errors carry a code a client can
// switch on: an HttpError its `code`, a 500 `GATEHOUSE_ERRORS_INTERNAL`
// (D-ERRORS-18, D-ERRORS-19).

async function app () {
  return build({}, (app) => {
    app.get('/order/:id', async () => { throw new HttpError(404, 'No such order', { code: 'ORDER_NOT_FOUND' }) })
    app.get('/plain', async () => { throw new HttpError(409, 'Already shipped') })
    app.get('/boom', async () => { throw new Error('the orders table is locked by hunter2-job') })
    app.get('/upstream', async () => { throw Object.assign(new Error('ECONNREFUSED 10.0.0.7:5432'), { statusCode: 503, code: 'ECONNREFUSED' }) })
  })
}

test('an HttpError with a code sends it; a 5xx not written for the caller says GATEHOUSE_ERRORS_INTERNAL', async (t) => {
  const { app: server, logs } = await app()
  t.teardown(() => server.close())
  t.same((await server.inject('/order/7')).json(), { statusCode: 404, code: 'ORDER_NOT_FOUND', error: 'Not Found', message: 'No such order' })
  t.same((await server.inject('/plain')).json(), { statusCode: 409, error: 'Conflict', message: 'Already shipped' }, 'no code given, none invented')
  const boom = await server.inject('/boom')
  t.equal(boom.statusCode, 500)
  t.same(boom.json(), { statusCode: 500, code: 'GATEHOUSE_ERRORS_INTERNAL', error: 'Internal Server Error', message: 'Internal Server Error' })
  const upstream = await server.inject('/upstream')
  t.same(upstream.json(), { statusCode: 503, code: 'GATEHOUSE_ERRORS_INTERNAL', error: 'Service Unavailable', message: 'Service Unavailable' }, 'never the thrown error\'s own code')
  for (const res of [boom, upstream]) t.notMatch(res.body, /hunter2|ECONNREFUSED|10\.0\.0\.7|orders table/)
  t.ok(logs.some((l) => l.level === 50 && l.err?.message === 'the orders table is locked by hunter2-job'), 'the details are in the log')
})

test('an HttpError code must be an identifier', async (t) => {
  for (const code of ['', 'has space', '1STARTS_WITH_DIGIT', 'x'.repeat(129), 'line\nbreak']) {
    t.throws(() => new HttpError(400, 'x', { code }), { code: 'GATEHOUSE_CORE_INVALID_HTTP_ERROR', message: /a code must be letters, digits and _ \. : -/ }, JSON.stringify(code))
  }
  t.throws(() => new HttpError(400, 'x', { code: 42 as unknown as string }), { code: 'GATEHOUSE_CORE_INVALID_HTTP_ERROR', message: /got 42/ })
  for (const code of ['ORDER_NOT_FOUND', 'shop.order:missing-1', 'E']) t.equal(new HttpError(400, 'x', { code }).code, code)
})
