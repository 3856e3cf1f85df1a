// AppServer.create(input, { plugins }): the async factory returns a built
// server, too late for register(); plugins given to it are registered first,
// inside the chain, as register() would (D-SERVER-64).
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { AppServer } from '@fastify-gatehouse/server'

const KEY = 'gak_00000000000000aa_' + 'd'.repeat(43)
const tokens = { ci: { key: KEY, tags: 'member' } }

test('create registers the plugins in order, inside the chain: their ruled routes are enforced', async (t) => {
  const order: string[] = []
  const server = await AppServer.create({ logger: false, tokens }, {
    plugins: [
      async (app: FastifyInstance) => {
        order.push('first')
        app.get('/whoami', { config: { authRule: 'member' } }, async (request) => request.scope.auth)
      },
      {
        plugin: async (app: FastifyInstance, options: Record<string, unknown>) => {
          order.push(`second ${String(options.greeting)}`)
          app.get('/hello', async () => ({ greeting: options.greeting }))
        },
        options: { greeting: 'hi' }
      }
    ]
  })
  t.teardown(() => server.close())
  t.same(order, ['first', 'second hi'])
  const anonymous = await server.inject('/whoami')
  t.equal(anonymous.statusCode, 403, 'the rule refuses an anonymous caller')
  t.equal(anonymous.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
  const ci = await server.inject({ url: '/whoami', headers: { authorization: `Bearer ${KEY}` } })
  t.equal(ci.statusCode, 200, 'auth runs for the plugin\'s route')
  t.match(ci.json(), { tags: ['member'] })
  t.same((await server.inject('/hello')).json(), { greeting: 'hi' })
  t.throws(() => server.register(async () => {}), { code: 'GATEHOUSE_SERVER_REGISTER_TOO_LATE' }, 'after create, register is too late, as before')
})

test('a bad plugin entry rejects create, naming it', async (t) => {
  await t.rejects(AppServer.create({ logger: false }, { plugins: [async () => {}, { plugin: 'nope' } as never] }),
    { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: 'plugins[1]: expected a plugin (a function) or { plugin, options }' })
  await t.rejects(AppServer.create({ logger: false }, { plugins: [{ plugin: async () => {}, options: 5 } as never] }),
    { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: 'plugins[0].options: expected an object' })
  await t.rejects(AppServer.create({ logger: false }, { plugins: {} as never }),
    { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: /^plugins: expected an array/ })
})

test('a plugin that fails rejects create with its error', async (t) => {
  await t.rejects(AppServer.create({ logger: false }, { plugins: [async () => { throw new Error('plugin broke') }] }), { message: 'plugin broke' })
})
