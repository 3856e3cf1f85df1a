// Two copies of a package in one process (two versions installed side by
// side, or a package deduplicated differently under two dependents) must
// not crash, and must keep working together: the copies here are the built
// dist copied to a test folder, next to the workspace sources.
import { test } from 'tap'
import Fastify from 'fastify'
import { Kind, Type, TypeRegistry } from '@sinclair/typebox'
import * as core from '@fastify-gatehouse/core'
import { allComponents, AppServer, errorsPlugin, middlewareChain, RoutedApplication, route } from 'fastify-gatehouse'
import { corsPlugin } from '@fastify-gatehouse/cors'
import { installCopies } from './helpers/package-copies.js'

type Core = typeof import('@fastify-gatehouse/core')
type Auth = typeof import('@fastify-gatehouse/auth')
type Cors = typeof import('@fastify-gatehouse/cors')

const PREFLIGHT = { method: 'OPTIONS' as const, url: '/x', headers: { origin: 'https://a.example', 'access-control-request-method': 'PUT' } }
const recipe = { middleware: { cors: { allowOrigins: 'https://a.example' } } }

test('a second copy of a component package, sharing core: importing both is fine, a list takes either, not both', async (t) => {
  const copies = installCopies(t.testdir({}), ['cors'])
  const { corsPlugin: corsCopy } = await import(copies.cors!) as Cors
  t.not(corsCopy, corsPlugin, 'two distinct components')
  t.equal(corsCopy.component.name, 'cors')

  for (const cors of [corsPlugin, corsCopy]) {
    const app = Fastify()
    t.teardown(() => app.close())
    await middlewareChain(app, recipe, { components: [errorsPlugin, cors] })
    app.put('/x', async () => 'ok')
    const res = await app.inject(PREFLIGHT)
    t.equal(res.statusCode, 204, cors === corsPlugin ? 'the original answers preflights' : 'the copy answers preflights')
    t.equal(res.headers['access-control-allow-origin'], 'https://a.example')
  }

  const replaced = Fastify()
  t.teardown(() => replaced.close())
  const chain = await middlewareChain(replaced, recipe, { components: [...allComponents.filter((c) => c.component.name !== 'cors'), corsCopy] })
  t.same(chain.map((c) => c.name), ['errors', 'cors'], 'the full list with one component swapped for its copy')

  const both = Fastify()
  t.teardown(() => both.close())
  await t.rejects(middlewareChain(both, recipe, { components: [...allComponents, corsCopy] }),
    { code: 'GATEHOUSE_CORE_DUPLICATE_COMPONENT', message: /^Two different components are named "cors" in one components list/ })

  // Registered directly (no list), each copy is an ordinary plugin.
  const direct = Fastify()
  t.teardown(() => direct.close())
  await direct.register(corsPlugin, { allowOrigins: 'https://a.example' })
  await direct.register(corsCopy, { allowOrigins: 'https://a.example' })
  direct.put('/x', async () => 'ok')
  t.equal((await direct.inject(PREFLIGHT)).statusCode, 204)
})

test('a second copy of core: components, errors and route rules made by one copy work with the other', async (t) => {
  const copies = installCopies(t.testdir({}), ['core', 'auth'])
  const coreCopy = await import(copies.core!) as Core
  const { authPlugin: authCopy } = await import(copies.auth!) as Auth
  t.not(coreCopy.HttpError, core.HttpError, 'two copies of core are loaded')

  t.ok(new coreCopy.Avatar('alice', { backend: 'test' }) instanceof core.Avatar, 'an Avatar of either copy is an Avatar')
  t.ok(new coreCopy.HttpError(418) instanceof core.HttpError)
  t.ok(new core.Redirect('/a') instanceof coreCopy.Redirect)
  t.notOk(new Error('x') instanceof core.HttpError)
  class Teapot extends core.HttpError { constructor () { super(418) } }
  t.ok(new Teapot() instanceof core.HttpError)
  t.notOk(new core.HttpError(418) instanceof Teapot, 'a subclass keeps its own instanceof')

  // The chain and errors of this copy, auth (and its 401 with a challenge) of the other.
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, { authMiddleware: { bearer: { ci: { token: 'ci-token', tags: 'ops' } } } },
    { components: [errorsPlugin, authCopy] })
  app.get('/ops', { authRule: 'ops' }, async (req) => ({ caller: req.scope.auth?.identity }))
  // A 5xx message reaches the caller only from an HttpError.
  app.get('/busy', async () => { throw new coreCopy.HttpError(503, 'Back at noon', { headers: { 'retry-after': '120' } }) })
  app.get('/moved', async () => { throw new coreCopy.Redirect('/elsewhere', 307) })
  const ok = await app.inject({ url: '/ops', headers: { authorization: 'Bearer ci-token' } })
  t.equal(ok.statusCode, 200)
  t.same(ok.json(), { caller: 'ci' })
  const refused = await app.inject({ url: '/ops', headers: { authorization: 'Bearer wrong' } })
  t.equal(refused.statusCode, 401)
  t.match(refused.headers['www-authenticate'], /^Bearer realm="gatehouse"/, 'the challenge of the other copy\'s HttpError is sent')
  t.equal((await app.inject('/ops')).statusCode, 403, 'anonymous callers are refused by the rule')
  const busy = await app.inject('/busy')
  t.equal(busy.statusCode, 503)
  t.equal(busy.headers['retry-after'], '120')
  t.equal(busy.json().message, 'Back at noon', 'the other copy\'s HttpError is an HttpError')
  const moved = await app.inject('/moved')
  t.equal(moved.statusCode, 307)
  t.equal(moved.headers.location, '/elsewhere')
})

test('a second copy of core: trackRouteRules of one and the chain of the other agree', async (t) => {
  const copies = installCopies(t.testdir({}), ['core'])
  const coreCopy = await import(copies.core!) as Core
  const rule = coreCopy.defineComponent({
    name: 'fake-auth',
    order: 400,
    default: true,
    plugin: async (app) => {
      app.addHook('onRequest', async (req) => { if (req.headers['x-user'] === 'root') req.scope.auth = new coreCopy.Avatar('root', { tags: 'admin', backend: 'test' }) })
    }
  })

  const app = Fastify()
  t.teardown(() => app.close())
  core.trackRouteRules(app)
  app.get('/early', async () => 'no rule, before the chain')
  await coreCopy.middlewareChain(app, {}, { components: [rule] })
  app.get('/admin', { authRule: 'admin' }, async () => 'secret')
  await app.ready()
  t.equal((await app.inject('/admin')).statusCode, 403)
  t.equal((await app.inject({ url: '/admin', headers: { 'x-user': 'root' } })).statusCode, 200)
  t.equal((await app.inject('/early')).statusCode, 200)

  // AppServer (this copy) with a component of the other copy.
  class Admin extends RoutedApplication {
    @route('/admin', { authRule: 'admin' })
    async admin () { return 'secret' }
  }
  const server = new AppServer({ primary: new Admin(), components: [...allComponents, rule], middleware: { 'fake-auth': true } })
  t.teardown(() => server.close())
  t.equal((await server.inject({ url: '/admin', headers: { 'x-user': 'root' } })).statusCode, 200)
  t.equal((await server.inject('/admin')).statusCode, 403)
})

test('a second copy of core: fresh compiled by one, tracked and answered by the other', async (t) => {
  const copies = installCopies(t.testdir({}), ['core'])
  const coreCopy = await import(copies.core!) as Core
  t.ok(new coreCopy.ReauthenticateError(60) instanceof core.ReauthenticateError, 'a ReauthenticateError of either copy is one')
  t.notOk(new core.HttpError(401) instanceof core.ReauthenticateError)
  const now = Date.now()
  const caller = coreCopy.defineComponent({
    name: 'fake-auth',
    order: 400,
    default: true,
    plugin: async (app) => {
      app.addHook('onRequest', async (req) => {
        const at = req.headers['x-at']
        if (typeof at === 'string') req.scope.auth = new coreCopy.Avatar('root', { backend: 'test', authenticatedAt: now - Number(at) * 1000 })
      })
    }
  })
  // trackRouteRules of this copy, the chain (which compiles fresh) of the other, the errors component of this one.
  const app = Fastify()
  t.teardown(() => app.close())
  core.trackRouteRules(app)
  await coreCopy.middlewareChain(app, { middleware: { errors: { login: true } } }, { components: [errorsPlugin, caller] })
  app.get('/recent', { fresh: 60 }, async () => 'recent')
  await app.ready()
  t.equal((await app.inject({ url: '/recent', headers: { 'x-at': '1' } })).statusCode, 200)
  const stale = await app.inject({ url: '/recent', headers: { 'x-at': '3600' } })
  t.equal(stale.statusCode, 401)
  t.equal(stale.headers['www-authenticate'], 'Bearer realm="gatehouse", error="insufficient_user_authentication", error_description="A more recent sign-in is required", max_age="60"')
  t.same(stale.json(), { statusCode: 401, code: 'GATEHOUSE_CORE_REAUTHENTICATE', error: 'Unauthorized', message: 'This route needs a sign-in within the last 60 seconds; sign in again', max_age: 60, login_url: '/_server/login_page?next=%2Frecent&reauth=1' })
  const nav = await app.inject({ url: '/recent', headers: { 'x-at': '3600', accept: 'text/html' } })
  t.equal(nav.headers.location, '/_server/login_page?next=%2Frecent&reauth=1')
})

test('a second copy of the server package: its RoutedApplication and @route mix with this copy\'s', async (t) => {
  const copies = installCopies(t.testdir({}), ['server'])
  const serverCopy = await import(copies.server!) as typeof import('@fastify-gatehouse/server')
  t.not(serverCopy.RoutedApplication, RoutedApplication, 'two copies of the server package are loaded')

  // `gatehouse serve --app` accepts an instance or a class of either copy.
  class FromCopy extends serverCopy.RoutedApplication {
    @serverCopy.route('/copy')
    async copy () { return { from: 'copy' } }
  }
  t.ok(new FromCopy() instanceof RoutedApplication)
  t.ok(FromCopy.prototype instanceof RoutedApplication)
  t.notOk({} instanceof RoutedApplication)

  // A class of this copy decorated with the other copy's @route.
  class Mixed extends RoutedApplication {
    @serverCopy.route('/mixed')
    async mixed () { return { mixed: true } }
  }
  const server = new AppServer({ primary: new Mixed(), apps: { '/other': new FromCopy() } })
  t.teardown(() => server.close())
  t.same((await server.inject('/mixed')).json(), { mixed: true })
  t.same((await server.inject('/other/copy')).json(), { from: 'copy' })
})

test('a second copy of core: options one copy checked are not checked again by the other (D-CHAIN-12)', async (t) => {
  const copies = installCopies(t.testdir({}), ['core'])
  const coreCopy = await import(copies.core!) as Core
  let checks = 0
  TypeRegistry.Set('GatehouseTwoCopiesCountedOption', (_schema, value) => { checks++; return typeof value === 'string' })
  const schema = Type.Object({ probeValue: Type.Unsafe<string>({ [Kind]: 'GatehouseTwoCopiesCountedOption' }) }, { additionalProperties: false })
  const seen: unknown[] = []
  // Defined by the copy; the config is read, and the chain run, by this copy.
  const counted = coreCopy.defineComponent<{ probeValue: string }>({ name: 'counted', schema, plugin: async (_app, options) => { seen.push(options) } })

  const config = core.recipeFromConfig({ middleware: { counted: { probe_value: 'x' } } }, { components: [counted] })
  t.equal(checks, 1, 'checked by the loader')
  const app = Fastify()
  t.teardown(() => app.close())
  await coreCopy.middlewareChain(app, config, { components: [counted] })
  await app.ready()
  t.equal(checks, 1, 'not by the other copy\'s chain, nor by the component')
  t.same(seen, [{ probeValue: 'x' }])

  const alone = Fastify()
  t.teardown(() => alone.close())
  await alone.register(counted, { probeValue: 'y' }).ready()
  t.equal(checks, 2, 'registered alone, the component checks its options')
})
