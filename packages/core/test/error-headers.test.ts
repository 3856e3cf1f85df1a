import { test } from 'tap'
import Fastify from 'fastify'
import { defineComponent, HttpError } from '@fastify-gatehouse/core'

// A component that refuses some requests in its onRequest hook with an HttpError carrying headers.
const refusing = defineComponent({
  name: 'refusing',
  order: 400,
  plugin: async (app) => {
    app.addHook('onRequest', async (request) => {
      if (request.url === '/challenge') throw new HttpError(401, 'Who are you?', { code: 'TEST_WHO', headers: { 'WWW-Authenticate': 'Basic realm="r"', 'content-type': 'text/evil' } })
      if (request.url === '/busy') throw new HttpError(503, 'Busy', { code: 'TEST_BUSY', headers: { 'retry-after': '7' } })
      if (request.url === '/plain') throw Object.assign(new Error('plain'), { statusCode: 400, headers: { 'x-not-ours': '1' } })
    })
  }
})

test('an HttpError\'s headers reach the response through an app\'s own error handler', async (t) => {
  const app = Fastify()
  app.setErrorHandler((error: { statusCode?: number, code?: string, message: string }, _request, reply) => {
    return reply.status(error.statusCode ?? 500).send({ mine: true, code: error.code, message: error.message })
  })
  await app.register(refusing)
  app.get('/challenge', async () => 'unreachable')
  app.get('/busy', async () => 'unreachable')
  app.get('/plain', async () => 'unreachable')
  app.get('/ok', async () => 'ok')
  t.teardown(() => app.close())

  const challenged = await app.inject('/challenge')
  t.equal(challenged.statusCode, 401)
  t.equal(challenged.headers['www-authenticate'], 'Basic realm="r"')
  t.match(challenged.headers['content-type'], /^application\/json/, 'a body header of the error is not taken over')
  t.same(challenged.json(), { mine: true, code: 'TEST_WHO', message: 'Who are you?' }, 'the app\'s handler still shapes the body')
  const busy = await app.inject('/busy')
  t.equal(busy.statusCode, 503)
  t.equal(busy.headers['retry-after'], '7')
  const plain = await app.inject('/plain')
  t.equal(plain.statusCode, 400)
  t.notOk('x-not-ours' in plain.headers, 'only Gatehouse HttpErrors: another error\'s headers stay the app\'s business')
  const ok = await app.inject('/ok')
  t.equal(ok.statusCode, 200)
  t.notOk('www-authenticate' in ok.headers)
})
