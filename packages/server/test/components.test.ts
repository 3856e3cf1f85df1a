import { test } from 'tap'
import { defineComponent } from '@fastify-gatehouse/core'
import { AppServer, RoutedApplication, route, allComponents } from '@fastify-gatehouse/server'

class Hello extends RoutedApplication {
  @route('/hello')
  async hello () { return { hello: 'world' } }
}

const timing = defineComponent({
  name: 'timing',
  order: 600,
  plugin: async (app) => {
    app.addHook('onSend', async (_req, reply, payload) => { reply.header('x-timing', 'on'); return payload })
  }
})

test('allComponents is every Gatehouse component, frozen', async (t) => {
  t.same(allComponents.map((c) => c.component.name), ['errors', 'wellknown', 'logging', 'cors', 'csrf', 'auth', 'session', 'cache', 'compression'])
  t.ok(Object.isFrozen(allComponents))
})

test('AppServer resolves middleware against allComponents by default', async (t) => {
  const server = new AppServer({ primary: new Hello(), middleware: { cors: { allowOrigins: 'https://a.example' } } })
  t.teardown(() => server.close())
  const res = await server.inject({ url: '/hello', headers: { origin: 'https://a.example' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['access-control-allow-origin'], 'https://a.example')
})

test('AppServer takes components of your own beside the built-in ones', async (t) => {
  const server = new AppServer({ primary: new Hello(), components: [...allComponents, timing], middleware: { timing: true } })
  t.teardown(() => server.close())
  const res = await server.inject('/hello')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['x-timing'], 'on')
})

test('a component that is defined but not in AppServer\'s list cannot be named: a boot error', async (t) => {
  const server = new AppServer({ primary: new Hello(), middleware: { timing: true } })
  t.teardown(() => server.close())
  await t.rejects(server.ready(), {
    code: 'GATEHOUSE_CORE_UNKNOWN_COMPONENT',
    message: /^Unknown component "timing" \(known: auth, cache, compression, cors, csrf, errors, logging, session, wellknown\); a recipe names only the components passed to it/
  })
})
