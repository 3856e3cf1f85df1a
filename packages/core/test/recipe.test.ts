import { test } from 'tap'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { defineComponent, middlewareChain, resolveRecipe } from '@fastify-gatehouse/core'

const opts = Type.Object({ level: Type.Optional(Type.Integer({ minimum: 1, maximum: 9 })), minimumSize: Type.Optional(Type.Integer()) }, { additionalProperties: false })
const COMPONENTS = [
  defineComponent({ name: 'errors', order: 100, default: true, plugin: async () => {} }),
  defineComponent({ name: 'logging', order: 200, plugin: async () => {} }),
  defineComponent({ name: 'compression', order: 900, schema: opts, plugin: async () => {} }),
  defineComponent({
    name: 'auth',
    order: 400,
    schema: Type.Object({ basic: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }),
    plugin: async () => {}
  })
]
const names = (steps: ReturnType<typeof resolveRecipe>) => steps.map((s) => s.component.component.name)

test('unmentioned components follow their default', async (t) => {
  t.same(names(resolveRecipe({}, COMPONENTS)), ['errors'])
})

test('true and "on" enable with defaults; an object enables and configures', async (t) => {
  const steps = resolveRecipe({ middleware: { compression: { level: 3 }, logging: 'on' } }, COMPONENTS)
  t.same(names(steps), ['errors', 'logging', 'compression'])
  t.same(steps.find((s) => s.component.component.name === 'compression')?.options, { level: 3 })
  t.same(names(resolveRecipe({ middleware: { logging: true } }, COMPONENTS)), ['errors', 'logging'])
})

test('false and "off" disable a default-on component', async (t) => {
  t.same(names(resolveRecipe({ middleware: { errors: false } }, COMPONENTS)), [])
  t.same(names(resolveRecipe({ middleware: { errors: 'off' } }, COMPONENTS)), [])
})

test('an unknown component is an error naming it', async (t) => {
  t.throws(() => resolveRecipe({ middleware: { compresion: true } }, COMPONENTS),
    { code: 'GATEHOUSE_CORE_UNKNOWN_COMPONENT', message: /^Unknown component "compresion" \(known: auth, compression, errors, logging\); a recipe names only the components passed to it: add its plugin to \{ components: \[\.\.\.\] \} of middlewareChain, loadRecipe or AppServer, or use fastify-gatehouse, whose middlewareChain and loadRecipe know every Gatehouse component$/ })
})

test('an unknown option is an error naming it', async (t) => {
  t.throws(() => resolveRecipe({ middleware: { compression: { levle: 3 } } }, COMPONENTS),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'middleware.compression.levle: unknown option' })
  t.throws(() => resolveRecipe({ middleware: { compression: { minimum_size: 3 } } }, COMPONENTS),
    { message: 'middleware.compression.minimum_size: unknown option (options are camelCase: minimumSize)' })
})

test('a bad option value or setting is an error naming its path', async (t) => {
  t.throws(() => resolveRecipe({ middleware: { compression: { level: 12 } } }, COMPONENTS),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^middleware\.compression\.level: expected integer to be less or equal to 9/ })
  t.throws(() => resolveRecipe({ middleware: { logging: 'yes' as never } }, COMPONENTS),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^middleware\.logging: expected true, false, 'on', 'off'/ })
  t.throws(() => resolveRecipe({ middleware: [] as never }, COMPONENTS), { message: 'middleware: expected an object' })
  t.throws(() => resolveRecipe({ midleware: {} } as never, COMPONENTS), { message: /^recipe\.midleware: unknown recipe section/ })
  t.throws(() => resolveRecipe(null as never, COMPONENTS), { message: 'recipe: expected an object' })
})

test('authMiddleware arms the auth component', async (t) => {
  const steps = resolveRecipe({ authMiddleware: { basic: { alice: {} } } }, COMPONENTS)
  t.same(names(steps), ['errors', 'auth'])
  t.same(steps[1]?.options, { basic: { alice: {} } })
  t.same(names(resolveRecipe({ authMiddleware: { basic: {} }, middleware: { auth: false } }, COMPONENTS)), ['errors'], 'auth: false wins')
  t.throws(() => resolveRecipe({ authMiddleware: { basic: {} }, middleware: { auth: { basic: {} } } }, COMPONENTS),
    { message: /give them in one place/ })
  t.throws(() => resolveRecipe({ authMiddleware: 'x' as never }, COMPONENTS), { message: 'authMiddleware: expected an object' })
  const noAuth = COMPONENTS.filter((c) => c.component.name !== 'auth')
  t.throws(() => resolveRecipe({ authMiddleware: {} }, noAuth), { code: 'GATEHOUSE_CORE_UNKNOWN_COMPONENT', message: /authPlugin of @fastify-gatehouse\/auth/ })
})

test('middlewareChain refuses a bad recipe before registering anything', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(middlewareChain(app, { middleware: { nope: true } }, { components: COMPONENTS }), { code: 'GATEHOUSE_CORE_UNKNOWN_COMPONENT' })
  t.notOk(app.hasRequestDecorator('scope'))
})
