import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { defineComponent, middlewareChain } from '@fastify-gatehouse/core'

const seen: string[] = []
const early = defineComponent({ name: 'early', order: 300, plugin: async (app) => { app.addHook('onRequest', async () => { seen.push('early') }) } })
const late = defineComponent({ name: 'late', order: 400, plugin: async (app) => { app.addHook('onRequest', async () => { seen.push('late') }) } })
// Only a response hook: its place among request hooks cannot matter.
const responseOnly = defineComponent({ name: 'response-only', order: 100, plugin: async (app) => { app.addHook('onSend', async () => {}) } })

function capturingApp (): { app: ReturnType<typeof Fastify>, warnings: string[] } {
  const warnings: string[] = []
  const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { warnings.push(JSON.parse(line).msg) } } } })
  return { app, warnings }
}

test('registered alone out of order: a boot warning names both components', async (t) => {
  const { app, warnings } = capturingApp()
  await app.register(late)
  await app.register(early)
  await app.register(responseOnly)
  app.get('/', async () => 'ok')
  t.teardown(() => app.close())
  seen.length = 0
  await app.inject('/')
  t.same(seen, ['late', 'early'], 'Fastify runs them in registration order')
  t.equal(warnings.length, 1, 'one warning; the response-only component gets none')
  t.match(warnings[0], /^gatehouse: early \(order 300\) was registered after late \(order 400\) on the same instance/)
  t.match(warnings[0], /Register components in ascending order, or use middlewareChain/)
})

test('in order, or through the chain: no warning', async (t) => {
  const inOrder = capturingApp()
  await inOrder.app.register(early)
  await inOrder.app.register(late)
  await inOrder.app.ready()
  t.same(inOrder.warnings, [])
  await inOrder.app.close()

  const chained = capturingApp()
  await middlewareChain(chained.app, { middleware: { late: true, early: true } }, { components: [late, early] })
  chained.app.get('/', async () => 'ok')
  seen.length = 0
  await chained.app.inject('/')
  t.same(seen, ['early', 'late'])
  t.same(chained.warnings, [])
  await chained.app.close()

  // Encapsulated siblings are separate instances: no warning across them.
  const siblings = capturingApp()
  await siblings.app.register(async (child: FastifyInstance) => { await child.register(late) })
  await siblings.app.register(async (child: FastifyInstance) => { await child.register(early) })
  await siblings.app.ready()
  t.same(siblings.warnings, [])
  await siblings.app.close()
})
