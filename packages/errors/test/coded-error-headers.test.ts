import { test } from 'tap'
import createError from '@fastify/error'
import { createCodedError } from '@fastify-gatehouse/core'
import { build } from './helpers/build.js'

// Issue 26, item 2: the errors component sends the headers of any coded
// error, as Fastify's own handler does, and the message of a coded 5xx that
// sets `expose` (D-ERRORS-20, D-CODES-05); an uncoded error's headers never
// (D-ERRORS-09).

const DOWN = createCodedError('APP_DOWN', 'Orders are paused: try again shortly', 503, { expose: true, headers: { 'retry-after': '30' } })
const SLOW_DOWN = createError('APP_SLOW_DOWN', 'Slow down', 429)
const HIDDEN = createCodedError('APP_HIDDEN', 'the orders table is locked by hunter2-job', 503, { headers: { 'retry-after': '9' } })

async function app () {
  return build({}, (app) => {
    app.get('/down', async () => { throw new DOWN() })
    app.get('/slow', async () => { throw Object.assign(new SLOW_DOWN(), { headers: { 'Retry-After': 7, 'content-type': 'text/evil' } }) })
    app.get('/hidden', async () => { throw new HIDDEN() })
    app.get('/upstream', async () => { throw Object.assign(new Error('upstream said no'), { statusCode: 502, headers: { 'set-cookie': 'upstream=1' } }) })
  })
}

test('a coded error\'s headers reach the response; a 5xx written for the caller keeps its message', async (t) => {
  const { app: server } = await app()
  t.teardown(() => server.close())
  const down = await server.inject('/down')
  t.equal(down.statusCode, 503)
  t.equal(down.headers['retry-after'], '30')
  t.same(down.json(), { statusCode: 503, code: 'APP_DOWN', error: 'Service Unavailable', message: 'Orders are paused: try again shortly' })

  const slow = await server.inject('/slow')
  t.equal(slow.statusCode, 429)
  t.equal(slow.headers['retry-after'], '7', 'an application\'s own createError class, headers set by hand')
  t.match(slow.headers['content-type'], /^application\/json/, 'never a body header')
  t.same(slow.json(), { statusCode: 429, code: 'APP_SLOW_DOWN', error: 'Too Many Requests', message: 'Slow down' })

  const hidden = await server.inject('/hidden')
  t.equal(hidden.headers['retry-after'], '9', 'its headers even when its message is hidden')
  t.same(hidden.json(), { statusCode: 503, code: 'GATEHOUSE_ERRORS_INTERNAL', error: 'Service Unavailable', message: 'Service Unavailable' })
  t.notMatch(hidden.body, 'hunter2')
})

test('an uncoded error forwards no header (an HTTP client\'s error carrying an upstream\'s Set-Cookie)', async (t) => {
  const { app: server } = await app()
  t.teardown(() => server.close())
  const upstream = await server.inject('/upstream')
  t.equal(upstream.statusCode, 502)
  t.notOk(upstream.headers['set-cookie'])
})
