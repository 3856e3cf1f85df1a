import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { of, recordingComponents, REQUEST_HOOKS, RESPONSE_HOOKS } from './helpers/recorder.js'

// Defined deliberately out of order; z-late sorts after a-early at the 900 tie.
const SPECS = [
  { name: 'z-late', order: 900 },
  { name: 'custom', order: 600 },
  { name: 'logging-like', order: 200 },
  { name: 'a-early', order: 900 },
  { name: 'security-like', order: 300 }
]
const ASCENDING = ['logging-like', 'security-like', 'custom', 'a-early', 'z-late']
const DESCENDING = ['a-early', 'z-late', 'custom', 'security-like', 'logging-like']

async function build (trace: string[]) {
  const app = Fastify()
  const chain = await middlewareChain(app, {}, { components: recordingComponents(SPECS, trace) })
  let settle: () => void = () => {}
  // Added after the chain: runs after every component's onResponse.
  app.addHook('onResponse', async () => { settle() })
  const done = () => new Promise<void>((resolve) => { settle = resolve })
  app.post('/root', async () => ({ ok: true }))
  app.post('/fail', async () => { throw new Error('boom') })
  await app.register(async (child) => {
    child.addHook('onRequest', async () => { trace.push('child:onRequest') })
    child.addHook('onSend', async (_req, _reply, payload) => { trace.push('child:onSend'); return payload })
    child.post('/nested', async () => ({ ok: true }))
  }, { prefix: '/child' })
  return { app, chain, done }
}

test('the chain registers components in ascending order, ties by name', async (t) => {
  const { app, chain } = await build([])
  t.teardown(() => app.close())
  t.same(chain.map((c) => c.name), ASCENDING)
  t.same(chain.map((c) => c.order), [200, 300, 600, 900, 900])
})

test('root route: request hooks ascend, response hooks descend', async (t) => {
  const trace: string[] = []
  const { app, done } = await build(trace)
  t.teardown(() => app.close())
  const finished = done()
  const res = await app.inject({ method: 'POST', url: '/root', payload: { a: 1 } })
  await finished
  t.equal(res.statusCode, 200)
  t.same(res.json(), { ok: true })
  for (const hook of REQUEST_HOOKS) t.same(of(trace, hook), ASCENDING, `${hook} ascends`)
  for (const hook of RESPONSE_HOOKS) t.same(of(trace, hook), DESCENDING, `${hook} descends`)
  // Every request hook of every component runs before any response hook.
  const lastRequest = trace.findLastIndex((e) => e.endsWith(':preHandler'))
  const firstResponse = trace.findIndex((e) => e.endsWith(':preSerialization'))
  t.ok(lastRequest < firstResponse)
})

test('nested plugin scope: chain hooks wrap the child scope hooks', async (t) => {
  const trace: string[] = []
  const { app, done } = await build(trace)
  t.teardown(() => app.close())
  const finished = done()
  const res = await app.inject({ method: 'POST', url: '/child/nested', payload: {} })
  await finished
  t.equal(res.statusCode, 200)
  t.same(of(trace, 'onRequest'), [...ASCENDING, 'child'])
  t.same(of(trace, 'onSend'), [...DESCENDING, 'child'],
    'hooks a child scope adds run after the inherited chain hooks in both phases (Fastify encapsulation); the chain keeps its own order')
  t.same(of(trace, 'onResponse'), DESCENDING)
})

test('error response: onError, onSend and onResponse descend', async (t) => {
  const trace: string[] = []
  const { app, done } = await build(trace)
  t.teardown(() => app.close())
  const finished = done()
  const res = await app.inject({ method: 'POST', url: '/fail', payload: {} })
  await finished
  t.equal(res.statusCode, 500)
  t.same(of(trace, 'onRequest'), ASCENDING)
  t.same(of(trace, 'onError'), DESCENDING)
  t.same(of(trace, 'onSend'), DESCENDING)
  t.same(of(trace, 'onResponse'), DESCENDING)
  t.same(of(trace, 'preSerialization'), [], 'an error payload is not serialised through preSerialization')
})

test('an error raised while parsing the body unwinds through the response hooks', async (t) => {
  const trace: string[] = []
  const { app, done } = await build(trace)
  t.teardown(() => app.close())
  const finished = done()
  // A body the JSON parser refuses: the error is raised in the parsing step.
  const res = await app.inject({ method: 'POST', url: '/root', payload: '{bad', headers: { 'content-type': 'application/json' } })
  await finished
  t.equal(res.statusCode, 400)
  t.same(of(trace, 'preValidation'), [], 'no hook after parsing ran')
  t.same(of(trace, 'onError'), DESCENDING)
  t.same(of(trace, 'onSend'), DESCENDING)
})

test('control: registered directly, Fastify runs onSend in registration order', async (t) => {
  const trace: string[] = []
  const app = Fastify()
  t.teardown(() => app.close())
  const components = recordingComponents(SPECS, trace)
  for (const name of ASCENDING) await app.register(components.find((c) => c.component.name === name)!)
  app.get('/', async () => 'ok')
  await app.inject('/')
  t.same(of(trace, 'onSend'), ASCENDING, 'without the chain the response phase is not an onion')
})

test('an error thrown from a component\'s onRequest hook unwinds through every response hook', async (t) => {
  const trace: string[] = []
  const { defineComponent } = await import('@fastify-gatehouse/core')
  const thrower = defineComponent({ name: 'thrower', order: 350, default: true, plugin: async (app) => { app.addHook('onRequest', async () => { trace.push('thrower:onRequest'); throw new Error('refused') }) } })
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, {}, { components: [...recordingComponents(SPECS, trace), thrower] })
  let settle: () => void = () => {}
  const finished = new Promise<void>((resolve) => { settle = resolve })
  app.addHook('onResponse', async () => { settle() })
  app.get('/', async () => 'never')
  const res = await app.inject('/')
  await finished
  t.equal(res.statusCode, 500)
  t.same(of(trace, 'onRequest'), ['logging-like', 'security-like', 'thrower'], 'request hooks stop at the thrower')
  t.same(of(trace, 'preHandler'), [])
  t.same(of(trace, 'onError'), DESCENDING, 'every component sees the error, innermost first')
  t.same(of(trace, 'onSend'), DESCENDING)
  t.same(of(trace, 'onResponse'), DESCENDING)
})
