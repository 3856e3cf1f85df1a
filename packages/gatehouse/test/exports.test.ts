import { test } from 'tap'
import Fastify from 'fastify'
import * as gatehouse from 'fastify-gatehouse'
import { middlewareChain as coreChain } from '@fastify-gatehouse/core'
// The spec's interfaces are types: the type check of this file is their test.
import type { ApiKeyStore, AuthMethod, UserStore } from 'fastify-gatehouse'

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- type-checking the alias is the test
type SpecInterfaces = [ApiKeyStore, AuthMethod, UserStore]

test('the spec\'s importable symbols come from one package', async (t) => {
  for (const name of ['AppServer', 'Avatar', 'AuthCore', 'resolveServerOptions', 'PasswordMethod', 'OidcMethod', 'FileApiKeyStore', 'FileUserStore', 'RoutedApplication', 'route', 'HttpError', 'Redirect', 'middlewareChain']) {
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
