import { test } from 'tap'
import Fastify from 'fastify'
import { defineComponent, middlewareChain, recipeFromConfig, resolveRecipe, type Component, type Recipe } from '@fastify-gatehouse/core'

function component (name: string, order = 500, extra: { default?: boolean } = {}): Component {
  return defineComponent({ name, order, ...extra, plugin: async (app) => { app.addHook('onSend', async (_req, reply, payload) => { reply.header(`x-${name}`, 'on'); return payload }) } })
}

test('defining a component changes nothing global: a recipe names only the components it is given', async (t) => {
  const timing = component('timing', 600)
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(middlewareChain(app, { middleware: { timing: true } }, { components: [] }),
    { code: 'GATEHOUSE_CORE_UNKNOWN_COMPONENT', message: /^Unknown component "timing" \(known: none\); a recipe names only the components passed to it/ })
  const chain = await middlewareChain(app, { middleware: { timing: true } }, { components: [timing] })
  t.same(chain, [{ name: 'timing', order: 600 }])
  app.get('/', async () => 'ok')
  t.equal((await app.inject('/')).headers['x-timing'], 'on')
})

test('core\'s middlewareChain without components is a boot error naming the recipe\'s components and the fix', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const fix = /: pass them, e\.g\. middlewareChain\(app, recipe, \{ components: \[errorsPlugin, corsPlugin\] \}\), or import middlewareChain from fastify-gatehouse, which passes every Gatehouse component$/
  await t.rejects((middlewareChain as (...args: unknown[]) => Promise<unknown>)(app, { middleware: { cors: true, session: {} }, authMiddleware: {} }),
    { code: 'GATEHOUSE_CORE_NO_COMPONENTS', message: /^middlewareChain needs the components its recipe may name \(this recipe names cors, session, auth\): pass them/ })
  await t.rejects((middlewareChain as (...args: unknown[]) => Promise<unknown>)(app, {}), { code: 'GATEHOUSE_CORE_NO_COMPONENTS', message: fix })
  await t.rejects((middlewareChain as (...args: unknown[]) => Promise<unknown>)(app, {}, {}), { code: 'GATEHOUSE_CORE_NO_COMPONENTS', message: /^middlewareChain needs the components its recipe may name: pass them/ })
  await t.rejects((middlewareChain as (...args: unknown[]) => Promise<unknown>)(app), { code: 'GATEHOUSE_CORE_NO_COMPONENTS' })
  t.notOk(app.hasRequestDecorator('scope'), 'nothing was registered')
  // An empty list is a choice: only request.scope and route rules.
  t.same(await middlewareChain(app, {}, { components: [] }), [])
  t.ok(app.hasRequestDecorator('scope'))
})

test('a list holding two different components with one name is a boot error, whether the recipe names it or not', async (t) => {
  const first = component('twin', 300)
  const second = component('twin', 300)
  const other = component('other', 200, { default: true })
  for (const recipe of [{}, { middleware: { twin: true } }, { middleware: { other: true } }] as Recipe[]) {
    t.throws(() => resolveRecipe(recipe, [other, first, second]),
      { code: 'GATEHOUSE_CORE_DUPLICATE_COMPONENT', message: /^Two different components are named "twin" in one components list; keep one/ }, JSON.stringify(recipe))
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(middlewareChain(app, {}, { components: [first, second] }), { code: 'GATEHOUSE_CORE_DUPLICATE_COMPONENT' })
  t.notOk(app.hasRequestDecorator('scope'), 'refused before registering anything')
  t.throws(() => recipeFromConfig({}, { components: [first, second] }), { code: 'GATEHOUSE_CORE_DUPLICATE_COMPONENT' })
})

test('the same component listed twice counts once; the list\'s order does not matter', async (t) => {
  const a = component('a-comp', 700)
  const b = component('b-comp', 200)
  const names = (list: Component[]) => resolveRecipe({ middleware: { 'a-comp': true, 'b-comp': true } }, list).map((s) => s.component.component.name)
  t.same(names([a, b, a]), ['b-comp', 'a-comp'])
  t.same(names([b, a]), ['b-comp', 'a-comp'])
})

test('a list that is not a list of components is refused, naming the entry', async (t) => {
  const a = component('a-comp')
  const plain = async () => {}
  t.throws(() => resolveRecipe({}, a as never), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'components: expected a list of components (made with defineComponent)' })
  t.throws(() => resolveRecipe({}, [a, plain] as never), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^components\[1\]: expected a component made with defineComponent/ })
  t.throws(() => resolveRecipe({}, [undefined] as never), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^components\[0\]: / })
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(middlewareChain(app, {}, { components: [plain] as never }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^components\[0\]: / })
})

test('a config object resolves against the components given; by default none', async (t) => {
  t.same(recipeFromConfig({ server: { port: 8000 } }), { server: { port: 8000 } }, 'a file without components sections needs none')
  t.throws(() => recipeFromConfig({ middleware: { cors: true } }), { code: 'GATEHOUSE_CORE_UNKNOWN_COMPONENT', message: /^Unknown component "cors" \(known: none\)/ })
  t.throws(() => recipeFromConfig({ auth_middleware: { basic: {} } }),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'auth_middleware: the auth component is not in the components list (add authPlugin of @fastify-gatehouse/auth)' })
  t.same(recipeFromConfig({ middleware: { 'a-comp': true } }, { components: [component('a-comp')] }), { middleware: { 'a-comp': true } })
})
