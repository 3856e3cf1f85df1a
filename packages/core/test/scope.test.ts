import { test } from 'tap'
import Fastify from 'fastify'
import { Avatar, ensureScope, middlewareChain } from '@fastify-gatehouse/core'

test('every request gets a fresh scope object', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, {}, { components: [] })
  const scopes: object[] = []
  app.get('/', async (req) => {
    scopes.push(req.scope)
    t.equal(req.scope.auth, null)
    req.scope.auth = new Avatar('mallory', { backend: 'test' })
    return 'ok'
  })
  await app.inject('/')
  await app.inject('/')
  t.equal(scopes.length, 2)
  t.not(scopes[0], scopes[1], 'not a shared reference')
})

test('ensureScope is idempotent and its hook runs before later onRequest hooks', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await ensureScope(app)
  await ensureScope(app)
  app.addHook('onRequest', async (req) => { t.same(req.scope, { auth: null }) })
  app.get('/', async () => 'ok')
  const res = await app.inject('/')
  t.equal(res.statusCode, 200)
})
