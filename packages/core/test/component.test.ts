import { test } from 'tap'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { defineComponent } from '@fastify-gatehouse/core'

test('defineComponent applies the defaults and returns a plugin with its facts', async (t) => {
  const c = defineComponent({ name: 'plain', plugin: async () => {} })
  t.equal(typeof c, 'function')
  t.same(c.component, { name: 'plain', order: 500, default: false, schema: undefined })
  t.ok(Object.isFrozen(c.component))
})

test('defining two components with one name is no error: only a list holding both is', async (t) => {
  const first = defineComponent({ name: 'twice', plugin: async () => {} })
  const second = defineComponent({ name: 'twice', plugin: async () => {} })
  t.not(first, second)
})

test('a malformed definition is refused', async (t) => {
  t.throws(() => defineComponent({ name: 'Bad Name', plugin: async () => {} }), { code: 'GATEHOUSE_CORE_INVALID_COMPONENT' })
  t.throws(() => defineComponent({ name: 'x', order: 0, plugin: async () => {} }), { code: 'GATEHOUSE_CORE_INVALID_COMPONENT', message: /order/ })
  t.throws(() => defineComponent({ name: 'y', order: 1.5, plugin: async () => {} }), { code: 'GATEHOUSE_CORE_INVALID_COMPONENT' })
  t.throws(() => defineComponent({ name: 'z', plugin: 'nope' as never }), { code: 'GATEHOUSE_CORE_INVALID_COMPONENT', message: /plugin/ })
})

test('registered alone, a component validates its options and covers the whole app', async (t) => {
  const seen: unknown[] = []
  const c = defineComponent<{ greeting?: string }>({
    name: 'greeter',
    schema: Type.Object({ greeting: Type.Optional(Type.String()) }, { additionalProperties: false }),
    plugin: async (app, opts) => {
      seen.push(opts)
      app.addHook('onSend', async (_req, reply, payload) => { reply.header('x-greeting', opts.greeting ?? 'hi'); return payload })
    }
  })

  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(c, { greeting: 'hello', logLevel: 'warn' } as never)
  await app.register(async (child) => { child.get('/inner', async (req) => ({ scope: req.scope })) })
  const res = await app.inject('/inner')
  t.equal(res.headers['x-greeting'], 'hello', 'hooks are not encapsulated')
  t.same(res.json(), { scope: { auth: null } }, 'request.scope exists when a component is registered alone')
  t.same(seen, [{ greeting: 'hello' }], 'Fastify register keys are not passed as options')

  const bad = Fastify()
  t.teardown(() => bad.close())
  await t.rejects(async () => { await bad.register(c, { greting: 'typo' } as never).ready() },
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'greeter options.greting: unknown option' })
  const wrongType = Fastify()
  t.teardown(() => wrongType.close())
  await t.rejects(async () => { await wrongType.register(c, { greeting: 3 } as never).ready() },
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'greeter options.greeting: expected string' })
})
