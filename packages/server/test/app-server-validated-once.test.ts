// Options are validated once (issue 14, item 8; D-CHAIN-12), through
// AppServer too: the server adds to the component options it is given (the
// errors component's login and debug, csrf's cookie name, the session's user
// check, auth's API keys), and a config file's sections stay checked once.
// Each built-in component is wrapped here in one with the same name and
// schema plus `probeValue`, whose check counts itself.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type Test } from 'tap'
import { Kind, Type, TypeRegistry } from '@sinclair/typebox'
import { defineComponent, loadRecipe, type Component } from '@fastify-gatehouse/core'
import { allComponents, AppServer } from '@fastify-gatehouse/server'

let checks = 0
TypeRegistry.Set('GatehouseServerTestCountedOption', (_schema, value) => {
  checks++
  return typeof value === 'string'
})
const probe = Type.Unsafe<string>({ [Kind]: 'GatehouseServerTestCountedOption' })

const seen = new Map<string, Record<string, unknown>>()
function counted (real: Component<any>): Component<Record<string, unknown>> {
  const { name, order, schema } = real.component
  return defineComponent<Record<string, unknown>>({
    name,
    order,
    schema: Type.Object({ ...schema?.properties, probeValue: Type.Optional(probe) }, { additionalProperties: false }),
    plugin: async (app, { probeValue, ...options }) => {
      seen.set(name, { probeValue, ...options })
      await app.register(real, options)
    }
  })
}
const custom = defineComponent<Record<string, unknown>>({
  name: 'custom',
  schema: Type.Object({ probeValue: probe }, { additionalProperties: false }),
  plugin: async (_app, options) => { seen.set('custom', options) }
})
const WRAPPED = ['errors', 'csrf', 'auth', 'session']
const components = [...allComponents.map((c) => WRAPPED.includes(c.component.name) ? counted(c) : c), custom]
const KEY = 'gak_00000000000000aa_' + 'd'.repeat(43)
const stores = { users: { alice: { password: 'alice-pass' } }, tokens: { ci: { key: KEY } } }

async function checksDuring (fn: () => Promise<unknown>): Promise<number> {
  const before = checks
  await fn()
  return checks - before
}

function assertHandedOn (t: Test): void {
  t.match(seen.get('errors'), { probeValue: 'e', login: true, debug: false }, 'errors: the server\'s login and debug added')
  t.match(seen.get('csrf'), { probeValue: 'c', cookieName: 'sid' }, 'csrf: the session\'s cookie name added')
  t.match(seen.get('session'), { probeValue: 's', cookieName: 'sid', checkIdentity: Function }, 'session: the user check added')
  t.match(seen.get('auth'), { probeValue: 'a', apiKeys: { verify: Function } }, 'auth: the API key store added')
  t.same(seen.get('custom'), { probeValue: 'x' })
}

test('AppServer with options given in TypeScript: each component\'s options are checked once, by the chain', async (t) => {
  seen.clear()
  const server = new AppServer({
    logger: false,
    components,
    login: true,
    middleware: { errors: { probeValue: 'e' }, csrf: { probeValue: 'c' }, session: { probeValue: 's', cookieName: 'sid' }, custom: { probeValue: 'x' } },
    auth: { probeValue: 'a' } as never,
    ...stores
  })
  t.teardown(() => server.close())
  t.equal(await checksDuring(() => server.ready()), 5, 'errors, csrf, session, auth and custom: once each')
  assertHandedOn(t)
})

test('AppServer from a config file: the loader checks each section once; the server\'s additions are checked alone', async (t) => {
  seen.clear()
  const file = join(t.testdir({}), 'gatehouse.yaml')
  writeFileSync(file, [
    'middleware:',
    '  errors: { probe_value: e }',
    '  csrf: { probe_value: c }',
    '  session: { probe_value: s, cookie_name: sid }',
    '  custom: { probe_value: x }',
    'auth_middleware: { probe_value: a }'
  ].join('\n'))
  let config: Awaited<ReturnType<typeof loadRecipe>> = {}
  t.equal(await checksDuring(async () => { config = await loadRecipe(file, { components }) }), 5, 'the loader: once per section')
  const server = new AppServer({
    logger: false,
    components,
    login: true,
    middleware: config.middleware,
    auth: config.authMiddleware as never,
    ...stores
  })
  t.teardown(() => server.close())
  t.equal(await checksDuring(() => server.ready()), 0, 'neither the chain nor the components check them again')
  assertHandedOn(t)
})
