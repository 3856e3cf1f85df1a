// Issue 26, item 5: the middleware chain that knows every component loads
// without the server. fastify-gatehouse/chain (and @fastify-gatehouse/components,
// where allComponents now lives) import core and the components only, so a
// user of the chain alone never loads @fastify-gatehouse/server or its OIDC
// client, openid-client. D-CORE-14.
import { test } from 'tap'
import Fastify from 'fastify'
import * as chain from 'fastify-gatehouse/chain'
import * as gatehouse from 'fastify-gatehouse'
import * as components from '@fastify-gatehouse/components'
import * as server from '@fastify-gatehouse/server'
import { resolutionsOf } from './helpers/resolutions.js'

/** The resolutions that load the server package or the OIDC client it depends on. */
const serverOrOidc = (lines: string[] = []): string[] => lines.filter((line) =>
  /(^@fastify-gatehouse\/server |\/packages\/server\/|^openid-client |\/openid-client\/|^oauth4webapi |\/oauth4webapi\/)/.test(line))

test('importing fastify-gatehouse/chain or @fastify-gatehouse/components in a fresh process loads neither the server nor openid-client', async (t) => {
  const loaded = await resolutionsOf(t.testdir({}), ['fastify-gatehouse/chain', '@fastify-gatehouse/components', 'fastify-gatehouse'])
  const viaChain = loaded.get('fastify-gatehouse/chain') ?? []
  t.ok(viaChain.some((line) => line.startsWith('@fastify-gatehouse/components ')), 'the log sees the chain entry\'s own imports')
  for (const name of ['core', 'errors', 'auth', 'session', 'cors', 'compression']) {
    t.ok(viaChain.some((line) => line.startsWith(`@fastify-gatehouse/${name} `)), `and the components it lists: ${name}`)
  }
  t.same(serverOrOidc(viaChain), [], 'fastify-gatehouse/chain: no @fastify-gatehouse/server, no openid-client')
  t.same(serverOrOidc(loaded.get('@fastify-gatehouse/components')), [], '@fastify-gatehouse/components neither')
  // The control: the same log sees both once the main entry (which re-exports AppServer) is imported.
  const viaMain = serverOrOidc(loaded.get('fastify-gatehouse'))
  t.ok(viaMain.some((line) => line.startsWith('@fastify-gatehouse/server ')), 'fastify-gatehouse loads the server')
  t.ok(viaMain.some((line) => line.startsWith('openid-client ')), 'and openid-client')
})

test('one allComponents, wherever it is imported from: the chain entry, the main entry, the components package and (as before) the server', async (t) => {
  t.equal(chain.allComponents, components.allComponents)
  t.equal(gatehouse.allComponents, components.allComponents)
  t.equal(server.allComponents, components.allComponents, '@fastify-gatehouse/server still exports it')
  t.equal(gatehouse.middlewareChain, chain.middlewareChain)
  t.same(Object.keys(chain).sort(), ['allComponents', 'loadRecipe', 'middlewareChain', 'recipeFromConfig'])
})

test('the chain of fastify-gatehouse/chain knows every component', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const entries = await chain.middlewareChain(app, { middleware: { cors: { allowOrigins: 'https://a.example' }, compression: true } })
  t.same(entries.map((c) => c.name), ['errors', 'cors', 'compression'])
  t.same(chain.recipeFromConfig({ middleware: { csrf: true } }), { middleware: { csrf: true } })
})
