import { test } from 'tap'
import Fastify from 'fastify'
import * as gatehouse from 'fastify-gatehouse'
import { middlewareChain as coreChain } from '@fastify-gatehouse/core'
// The spec's interfaces are types: the type check of this file is their test.
import type { ApiKeyStore, AuthMethod, UserStore } from 'fastify-gatehouse'

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- type-checking the alias is the test
type SpecInterfaces = [ApiKeyStore, AuthMethod, UserStore]

test('the spec\'s importable symbols come from one package', async (t) => {
  for (const name of ['AppServer', 'Avatar', 'AuthCore', 'AuthMixin', 'resolveServerOptions', 'PasswordMethod', 'OidcMethod', 'FileApiKeyStore', 'FileUserStore', 'RoutedApplication', 'route', 'HttpError', 'Redirect', 'middlewareChain']) {
    t.type((gatehouse as Record<string, unknown>)[name], 'function', name)
  }
})

test('the password policy comes from the umbrella too', async (t) => {
  const policy = gatehouse.resolvePasswordPolicy({ minLength: 12 })
  t.same(policy, { minLength: 12, maxLength: 256 })
  t.same(gatehouse.passwordPolicyDefaults, { minLength: 8, maxLength: 256 })
  t.same(gatehouse.passwordProblem('eleven char', 'ann', policy), { rule: 'min-length', message: 'The password must be at least 12 characters long.' })
  t.equal(gatehouse.passwordProblem('a good passphrase', 'ann', policy), null)
  t.equal(gatehouse.isCommonPassword('Sunshine'), true)
})

test('allComponents holds every component the umbrella exports, once', async (t) => {
  const exported = Object.values(gatehouse).filter((value) => typeof value === 'function' && 'component' in value)
  t.same(gatehouse.allComponents.map((c) => c.component.name).sort(), ['auth', 'cache', 'compression', 'cors', 'csrf', 'errors', 'logging', 'session', 'wellknown'])
  t.same(new Set(gatehouse.allComponents), new Set(exported), 'no exported component is missing from the list')
  t.ok(Object.isFrozen(gatehouse.allComponents))
})

test('the umbrella\'s middlewareChain knows every component; importing it changes nothing else', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const chain = await gatehouse.middlewareChain(app, { middleware: { cors: { allowOrigins: 'https://a.example' }, logging: true } })
  t.same(chain.map((c) => c.name), ['errors', 'logging', 'cors'])
  app.get('/x', async () => 'ok')
  const res = await app.inject({ url: '/x', headers: { origin: 'https://a.example' } })
  t.equal(res.headers['access-control-allow-origin'], 'https://a.example')

  const plain = Fastify()
  t.teardown(() => plain.close())
  await t.rejects(coreChain(plain, { middleware: { cors: true } }, { components: [] }),
    { code: 'GATEHOUSE_CORE_UNKNOWN_COMPONENT', message: /^Unknown component "cors" \(known: none\)/ },
    'core resolves against the list it is given, whatever was imported')

  const narrowed = Fastify()
  t.teardown(() => narrowed.close())
  await t.rejects(gatehouse.middlewareChain(narrowed, { middleware: { cors: true } }, { components: [gatehouse.errorsPlugin] }),
    { code: 'GATEHOUSE_CORE_UNKNOWN_COMPONENT', message: /known: errors\)/ }, 'components narrows the umbrella\'s list')
})

test('the umbrella\'s loadRecipe and recipeFromConfig know every component', async (t) => {
  t.same(gatehouse.recipeFromConfig({ middleware: { compression: { minimum_size: 10 } } }), { middleware: { compression: { minimumSize: 10 } } })
  t.throws(() => gatehouse.recipeFromConfig({ middleware: { gzip: true } }), { code: 'GATEHOUSE_CORE_UNKNOWN_COMPONENT', message: /"gzip" \(known: auth, cache, compression, cors, csrf, errors, logging, session, wellknown\)/ })
  const dir = t.testdir({ 'gatehouse.yaml': 'middleware:\n  cors:\n    allow_origins: https://a.example\n' })
  t.same(await gatehouse.loadRecipe(`${dir}/gatehouse.yaml`), { middleware: { cors: { allowOrigins: 'https://a.example' } } })
})

test('the route inventory comes from the umbrella: every route with its rule after ready()', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await gatehouse.middlewareChain(app, { middleware: {} })
  app.get('/open', async () => 'ok')
  app.get('/admin', { config: { authRule: 'admin' } }, async () => 'ok')
  t.equal(gatehouse.routeRules(app), undefined, 'nothing before ready()')
  await app.ready()
  const entries: readonly gatehouse.RouteRuleEntry[] = gatehouse.routeRules(app) ?? []
  t.same(entries.filter((e) => e.method === 'GET').map((e) => [e.url, e.rule]), [['/open', 'public'], ['/admin', 'admin']])
  // No auth component: nothing to challenge with, so an anonymous caller is forbidden.
  const refused = await app.inject('/admin')
  t.equal(refused.statusCode, 403, 'the inventory says what the route enforces')
  t.equal(refused.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
})

test('AuthMixin, the spec\'s symbol, is AppServer: a class extending it is a server with auth', async (t) => {
  t.equal(gatehouse.AuthMixin(class {}), gatehouse.AppServer)
  class MyServer extends gatehouse.AuthMixin() {}
  const server = new MyServer({ logger: false, auth: { basic: { alice: { password: 'correct horse battery', tags: 'reader' } } } })
  t.teardown(() => server.close())
  server.register(async (app) => { app.get('/who', { config: { authRule: 'reader' } }, async (request) => request.scope.auth?.identity) })
  const basic = `Basic ${Buffer.from('alice:correct horse battery').toString('base64')}`
  const res = await server.inject({ url: '/who', headers: { authorization: basic } })
  t.equal(res.statusCode, 200)
  t.equal(res.body, 'alice')
  t.ok(server instanceof gatehouse.AppServer)
})
