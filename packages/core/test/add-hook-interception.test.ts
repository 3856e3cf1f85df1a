// The addHook interception shared by the chain's HookOrdering (D-CHAIN-01)
// and the registration-order warning (D-CHAIN-13).
import { test } from 'tap'
import Fastify from 'fastify'
import { interceptAddHook } from '../src/add-hook-interception.js'

test('the instance\'s own hooks are shown and kept or passed on; an encapsulated child\'s go straight to the child', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const trace: string[] = []
  const shown: string[] = []
  await interceptAddHook(app, (hookName) => {
    shown.push(hookName)
    return hookName === 'onSend'
  }, async () => {
    app.addHook('onRequest', async () => { trace.push('app:onRequest') })
    app.addHook('onSend', async (_request, _reply, payload) => { trace.push('app:onSend'); return payload })
    await app.register(async (child) => {
      child.addHook('onSend', async (_request, _reply, payload) => { trace.push('child:onSend'); return payload })
      child.get('/child', async () => 'child')
    })
  })
  app.get('/root', async () => 'root')
  t.same(shown, ['onRequest', 'onSend'], 'only hooks added to the instance itself are shown')
  const root = await app.inject('/root')
  t.equal(root.body, 'root')
  t.same(trace, ['app:onRequest'], 'a kept hook is not added; the others are')
  trace.length = 0
  const child = await app.inject('/child')
  t.equal(child.body, 'child')
  t.same(trace, ['app:onRequest', 'child:onSend'], 'the child\'s hook is its own, unseen and not kept')
})

test('addHook is put back as it was, when the registration throws and when interceptions nest', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const before = Object.getOwnPropertyDescriptor(app, 'addHook')
  const outer: string[] = []
  const inner: string[] = []
  await interceptAddHook(app, (hookName) => { outer.push(hookName); return false }, async () => {
    await t.rejects(interceptAddHook(app, (hookName) => { inner.push(hookName); return false }, async () => {
      app.addHook('onRequest', async () => {})
      throw new Error('boom')
    }), /boom/)
    app.addHook('preHandler', async () => {})
  })
  t.same(inner, ['onRequest'])
  t.same(outer, ['onRequest', 'preHandler'], 'the inner interception passes on to the outer, which is back once the inner ends')
  const after = Object.getOwnPropertyDescriptor(app, 'addHook')
  t.equal(after?.value, before?.value, 'the original addHook')
  t.equal(after?.enumerable, before?.enumerable)
  t.equal(after?.writable, before?.writable)
  t.equal(after?.configurable, before?.configurable)
})
