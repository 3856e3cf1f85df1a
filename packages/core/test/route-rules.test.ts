import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { fakeAuthComponents } from './helpers/fake-auth.js'

// An auth stand-in at order 400: `x-user: name:tag1,tag2` becomes the caller.
async function build () {
  const app = Fastify()
  await middlewareChain(app, {}, { components: fakeAuthComponents() })
  let parsed = 0
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    parsed++
    done(null, JSON.parse(body as string))
  })
  app.get('/open', async () => 'open')
  app.get('/admin', { config: { authRule: 'admin' } }, async () => 'admin')
  app.get('/either', { authRule: 'admin|ops' }, async () => 'either')
  app.get('/not-suspended', { authRule: '!suspended' }, async () => 'ok')
  const order: string[] = []
  app.post('/orders', {
    authRule: 'admin & !suspended',
    onRequest: async () => { order.push('route onRequest') }
  }, async (req) => ({ received: req.body }))
  await app.register(async (child) => {
    child.get('/nested', { authRule: 'ops' }, async () => 'nested')
  }, { prefix: '/child' })
  await app.ready()
  return { app, parsed: () => parsed, order }
}

test('a route without a rule is open', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  t.equal((await app.inject('/open')).body, 'open')
})

test('a rule admits callers whose tags satisfy it, refuses the rest with 403', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const cases: Array<[string, string | undefined, number]> = [
    ['/admin', 'alice:admin', 200],
    ['/admin', 'bob:ops', 403],
    ['/admin', undefined, 403],
    ['/either', 'bob:ops', 200],
    ['/either', 'carol:dev', 403],
    ['/not-suspended', 'dan:dev', 200],
    ['/not-suspended', undefined, 403],
    ['/child/nested', 'bob:ops', 200],
    ['/child/nested', 'alice:admin', 403]
  ]
  for (const [url, user, status] of cases) {
    const res = await app.inject({ url, headers: user === undefined ? {} : { 'x-user': user } })
    t.equal(res.statusCode, status, `${url} as ${user ?? 'anonymous'}`)
    if (status === 403) {
      t.same(res.json(), { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message: 'Insufficient permissions for this route' })
    }
  }
})

test('HEAD routes carry the rule exactly once', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  t.equal((await app.inject({ method: 'HEAD', url: '/admin' })).statusCode, 403)
  t.equal((await app.inject({ method: 'HEAD', url: '/admin', headers: { 'x-user': 'a:admin' } })).statusCode, 200)
})

test('the rule runs after auth, before the route\'s own hooks and before the body is parsed', async (t) => {
  const { app, parsed, order } = await build()
  t.teardown(() => app.close())
  const refused = await app.inject({ method: 'POST', url: '/orders', payload: { n: 1 }, headers: { 'x-user': 'eve:admin,suspended' } })
  t.equal(refused.statusCode, 403)
  t.equal(parsed(), 0, 'the body of a refused caller is never parsed')
  t.same(order, [], "the route's own onRequest did not run")
  const ok = await app.inject({ method: 'POST', url: '/orders', payload: { n: 1 }, headers: { 'x-user': 'alice:admin' } })
  t.equal(ok.statusCode, 200)
  t.same(ok.json(), { received: { n: 1 } })
  t.equal(parsed(), 1)
  t.same(order, ['route onRequest'])
})

test('a malformed rule fails at boot naming the route and the rule', async (t) => {
  for (const [options, message] of [
    [{ authRule: 'admin &' }, 'Invalid authRule "admin &" on GET /bad: expected a tag, got the end of the rule at position 7'],
    [{ config: { authRule: 'a' }, authRule: 'b' }, 'Invalid authRule "a" / "b" on GET /bad: config.authRule and authRule disagree'],
    [{ authRule: 42 }, 'Invalid authRule 42 on GET /bad: a rule must be a string']
  ] as const) {
    const app = Fastify()
    await middlewareChain(app, {}, { components: [] })
    t.throws(() => app.get('/bad', options as never, async () => 'x'), { code: 'GATEHOUSE_CORE_INVALID_AUTH_RULE', message })
    await app.close()
  }
})

test('with no auth at all, a rule is a 403', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, {}, { components: [] })
  app.get('/admin', { authRule: 'admin' }, async () => 'admin')
  t.equal((await app.inject('/admin')).statusCode, 403)
})

// Routes declared before the chain (boot errors) and rules set after the
// chain compiled a route (refused per request): test/security/route-rule-ignored.test.ts.
