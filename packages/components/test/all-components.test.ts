// D-CHAIN-07, D-CORE-14: the package holds the one list of every Gatehouse
// component and core's chain entry points defaulting to it.
import { test } from 'tap'
import Fastify from 'fastify'
import { allComponents, loadRecipe, middlewareChain, recipeFromConfig } from '@fastify-gatehouse/components'
import { defineComponent } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'

test('allComponents: the nine Gatehouse components, by order, frozen', async (t) => {
  t.same(allComponents.map((c) => c.component.name), ['errors', 'wellknown', 'logging', 'cors', 'csrf', 'auth', 'session', 'cache', 'compression'])
  t.ok(Object.isFrozen(allComponents))
  t.equal(allComponents[0], errorsPlugin, 'the components themselves, not copies')
})

test('the chain entry points default to allComponents; `components` replaces it', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  t.same((await middlewareChain(app, { middleware: { session: true } })).map((c) => c.name), ['errors', 'session'])

  const timing = defineComponent({ name: 'timing', order: 600, plugin: async () => {} })
  const own = Fastify()
  t.teardown(() => own.close())
  t.same((await middlewareChain(own, { middleware: { timing: true } }, { components: [...allComponents, timing] })).map((c) => c.name), ['errors', 'timing'])
  t.throws(() => recipeFromConfig({ middleware: { timing: true } }), { code: 'GATEHOUSE_CORE_UNKNOWN_COMPONENT' }, 'a name outside the list')
  const dir = t.testdir({ 'gatehouse.yaml': 'middleware:\n  timing: true\n' })
  t.same(await loadRecipe(`${dir}/gatehouse.yaml`, { components: [timing] }), { middleware: { timing: true } })
})
