// Issue 13, item 7: through AppServer, a route added to `server.fastify`
// before the chain with the `authRule` shorthand was served open (200), the
// `config.authRule` form refused (403). Both spellings are now enforced
// alike after the chain, and either one before it fails ready() naming the route.
import { test } from 'tap'
import type { RouteShorthandOptions } from 'fastify'
import { AppServer } from '@fastify-gatehouse/server'
import { basic } from '../helpers/credentials.js'

const SPELLINGS: ReadonlyArray<[string, RouteShorthandOptions]> = [
  ['config.authRule', { config: { authRule: 'ops' } }],
  ['authRule shorthand', { authRule: 'ops' }]
]

const build = () => new AppServer({ logger: false, auth: { basic: { olga: { password: 'olga-pass', tags: 'ops' }, dev: { password: 'dev-pass', tags: 'dev' } } } })

test('routes added through server.register (after the chain): both spellings enforced alike', async (t) => {
  for (const [name, options] of SPELLINGS) {
    const server = build()
    server.register(async (app) => {
      app.get('/ops', options, async () => 'secret')
      await app.register(async (child) => { child.get('/ops', options, async () => 'secret') }, { prefix: '/child' })
    })
    for (const url of ['/ops', '/child/ops']) {
      const anonymous = await server.inject(url)
      t.equal(anonymous.statusCode, 403, `${name} ${url}: anonymous`)
      t.equal(anonymous.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
      const wrongTag = await server.inject({ url, headers: { authorization: basic('dev', 'dev-pass') } })
      t.equal(wrongTag.statusCode, 403, `${name} ${url}: without the tag`)
      t.equal(wrongTag.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
      const allowed = await server.inject({ url, headers: { authorization: basic('olga', 'olga-pass') } })
      t.equal(allowed.statusCode, 200, `${name} ${url}: with the tag`)
      t.equal(allowed.body, 'secret')
    }
    await server.close()
  }
})

test('a rule on a route added to server.fastify before the chain: ready() rejects naming the route', async (t) => {
  for (const [name, options] of SPELLINGS) {
    for (const where of ['root', 'prefixed plugin'] as const) {
      const server = build()
      if (where === 'root') server.fastify.get('/early', options, async () => 'served open')
      else server.fastify.register(async (child) => { child.post('/early', options, async () => 'served open') }, { prefix: '/child' })
      const named = where === 'root' ? 'GET /early, HEAD /early' : 'POST /child/early'
      const boot = { code: 'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE', message: `authRule cannot be enforced on ${named}: the route was declared before the Gatehouse chain or outside its instance tree; declare routes after middlewareChain` }
      await t.rejects(server.ready(), boot, `${name}, ${where}: ready()`)
      await server.close()
    }
  }
})

test('listen() rejects too, and nothing is served', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  server.fastify.get('/early', { authRule: 'ops' }, async () => 'served open')
  await t.rejects(server.serve('127.0.0.1', 0), { code: 'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE' })
  t.equal(server.fastify.server.listening, false)
})

test('routes without a rule may still be added to server.fastify before the chain', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  server.fastify.get('/health', async () => 'ok')
  t.equal((await server.inject('/health')).body, 'ok')
})
