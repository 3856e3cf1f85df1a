// Issue 13, item 7: the `authRule` shorthand on a route declared before the
// chain was served open (200) while `config.authRule` was refused (403).
// No rule may be silently ignored: both spellings are enforced alike, and a
// rule that cannot be enforced is a boot error naming the route.
import { test, type Test } from 'tap'
import Fastify, { type FastifyInstance, type RouteShorthandOptions } from 'fastify'
import { middlewareChain, trackRouteRules } from '@fastify-gatehouse/core'
import { fakeAuthComponents } from '../helpers/fake-auth.js'

// An auth stand-in: `x-user: name:tag1,tag2` becomes the caller.

const SPELLINGS: ReadonlyArray<[string, RouteShorthandOptions]> = [
  ['config.authRule', { config: { authRule: 'admin' } }],
  ['authRule shorthand', { authRule: 'admin' }]
]

const FORBIDDEN = { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message: 'Insufficient permissions for this route' }

async function assertEnforced (t: Test, app: FastifyInstance, url: string): Promise<void> {
  for (const method of ['GET', 'HEAD'] as const) {
    const anonymous = await app.inject({ method, url })
    t.equal(anonymous.statusCode, 403, `${method} ${url} anonymous`)
    const wrongTag = await app.inject({ method, url, headers: { 'x-user': 'bob:ops' } })
    t.equal(wrongTag.statusCode, 403, `${method} ${url} without the tag`)
    if (method === 'GET') {
      t.same(anonymous.json(), FORBIDDEN)
      t.same(wrongTag.json(), FORBIDDEN)
    }
    const allowed = await app.inject({ method, url, headers: { 'x-user': 'alice:admin' } })
    t.equal(allowed.statusCode, 200, `${method} ${url} with the tag`)
    if (method === 'GET') t.equal(allowed.body, 'secret')
  }
}

test('after the chain, both spellings are enforced alike, prefixed plugins included', async (t) => {
  for (const [name, options] of SPELLINGS) {
    const app = Fastify()
    await middlewareChain(app, {}, { components: fakeAuthComponents() })
    app.get('/admin', options, async () => 'secret')
    await app.register(async (child) => { child.get('/admin', options, async () => 'secret') }, { prefix: '/child' })
    await app.ready()
    await t.test(name, async (t) => {
      await assertEnforced(t, app, '/admin')
      await assertEnforced(t, app, '/child/admin')
    })
    await app.close()
  }
})

test('a bare app with a route declared before the chain fails at ready(), printing the route', async (t) => {
  for (const [name, options] of [...SPELLINGS, ['no rule at all (its rule could not be seen either)', {}] as const]) {
    for (const where of ['root', 'prefixed plugin'] as const) {
      const app = Fastify()
      if (where === 'root') app.get('/early', options, async () => 'served open')
      else app.register(async (child) => { child.get('/early', options, async () => 'served open') }, { prefix: '/child' })
      await middlewareChain(app, {}, { components: fakeAuthComponents() })
      app.get('/late', { authRule: 'admin' }, async () => 'late')
      const url = where === 'root' ? '/early' : '/child/early'
      await t.rejects(async () => { await app.ready() }, {
        code: 'GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN',
        message: new RegExp(`^Routes were declared before the Gatehouse chain, so an authRule or fresh option on them \\(in config or as the shorthand\\) could not be seen; .*Routes:\\n.*${url} \\(GET, HEAD\\)$`, 's')
      }, `${name}, ${where}`)
      t.notMatch(await app.ready().then(() => '', (err: Error) => err.message), /\/late/, 'routes after the chain are not listed')
      await app.close()
    }
  }
})

test('a tracked app: a rule on a route declared before the chain fails at ready(), naming method and URL', async (t) => {
  for (const [name, options] of SPELLINGS) {
    for (const where of ['root', 'prefixed plugin'] as const) {
      const app = Fastify()
      trackRouteRules(app)
      app.get('/open-early', async () => 'open')
      if (where === 'root') app.get('/early', options, async () => 'served open')
      else app.register(async (child) => { child.get('/early', options, async () => 'served open') }, { prefix: '/child' })
      await middlewareChain(app, {}, { components: fakeAuthComponents() })
      app.get('/late', options, async () => 'late')
      const url = where === 'root' ? '/early' : '/child/early'
      await t.rejects(async () => { await app.ready() }, {
        code: 'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE',
        message: `authRule cannot be enforced on GET ${url}, HEAD ${url}: the route was declared before the Gatehouse chain or outside its instance tree; declare routes after middlewareChain`
      }, `${name}, ${where}`)
      await app.close()
    }
  }
})

test('a tracked app: routes without rules may come before the chain; ruled routes after it are enforced', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  trackRouteRules(app)
  app.get('/health', async () => 'ok')
  await middlewareChain(app, {}, { components: fakeAuthComponents() })
  app.get('/admin', { authRule: 'admin' }, async () => 'secret')
  app.get('/config-admin', { config: { authRule: 'admin' } }, async () => 'secret')
  await app.ready()
  t.equal((await app.inject('/health')).body, 'ok')
  await assertEnforced(t, app, '/admin')
  await assertEnforced(t, app, '/config-admin')
})

test('a tracked app: a ruled route outside the chain\'s instance tree fails at ready()', async (t) => {
  for (const [name, options] of SPELLINGS) {
    const app = Fastify()
    trackRouteRules(app)
    await app.register(async (child) => {
      await middlewareChain(child, {}, { components: fakeAuthComponents() })
      child.get('/inside', options, async () => 'secret')
    })
    app.get('/outside', options, async () => 'served open')
    await t.rejects(async () => { await app.ready() }, { code: 'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE', message: /^authRule cannot be enforced on GET \/outside, HEAD \/outside:/ }, name)
    await app.close()
  }
})

test('trackRouteRules after the first route is refused at once', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.get('/early', { authRule: 'admin' }, async () => 'served open')
  t.throws(() => trackRouteRules(app), { code: 'GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN', message: /^Routes were declared before trackRouteRules.*\/early \(GET, HEAD\)$/s })
})

// Issue 26, item 1 changed this from a per-request refusal (403 and an
// error log) to a boot error: one check at ready() (D-RULES-16).
test('a rule set after the chain compiled the route (a later onRoute hook) fails ready(), naming the route; a hook added before the chain is fine', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, {}, { components: fakeAuthComponents() })
  // Another plugin's onRoute hook, added after the chain's, sets the rule:
  // the chain never compiled it.
  app.addHook('onRoute', (route) => { route.config = { ...route.config, authRule: 'admin' } })
  app.get('/late-rule', async () => 'served open')
  app.get('/open', { config: { authRule: 'admin' } }, async () => 'secret')
  await t.rejects(async () => { await app.ready() }, {
    code: 'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE',
    message: 'authRule cannot be enforced on GET /late-rule, HEAD /late-rule: it was set after the Gatehouse chain compiled the route (by an onRoute hook added after the chain\'s); set it in the route\'s options, or add that hook before middlewareChain'
  })

  const early = Fastify()
  t.teardown(() => early.close())
  early.addHook('onRoute', (route) => { route.config = { ...route.config, authRule: 'admin' } })
  await middlewareChain(early, {}, { components: fakeAuthComponents() })
  early.get('/set-by-hook', async () => 'secret')
  await early.ready()
  await assertEnforced(t, early, '/set-by-hook')
})
