// Options are validated once (issue 14, item 8; D-CHAIN-12): whichever way a
// component's options arrive, its schema checks them exactly once. The
// schema's `probeValue` counts the checks (helpers/counted-schema.ts).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { defineComponent, extendOptions, loadRecipe, middlewareChain, recipeFromConfig, resolveRecipe } from '@fastify-gatehouse/core'
import { countedString } from './helpers/counted-schema.js'

const probe = countedString('GatehouseCoreTestCountedOption')
const properties = {
  probeValue: probe.schema,
  verifiers: Type.Optional(Type.Array(Type.Object({ maxAge: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }))),
  extra: Type.Optional(Type.Integer({ minimum: 1 })),
  meta: Type.Optional(Type.Unknown())
}
interface Options { probeValue: string, verifiers?: Array<{ maxAge: number }>, extra?: number, meta?: unknown }

const seen: Array<{ name: string, options: Options }> = []
const make = (name: string): ReturnType<typeof defineComponent<Options>> => defineComponent<Options>({
  name,
  // A schema object of its own: options checked for one component are not taken as checked for another.
  schema: Type.Object(properties, { additionalProperties: false }),
  plugin: async (_app, options) => { seen.push({ name, options }) }
})
const counted = make('counted')
const auth = make('auth')
const other = make('other')
const components = [counted, auth]

// Runs `fn` and returns how many times the counted option was checked meanwhile.
async function checksDuring (fn: () => unknown): Promise<number> {
  const before = probe.checks()
  await fn()
  return probe.checks() - before
}

const lastSeen = (name: string): Options | undefined => seen.filter((s) => s.name === name).at(-1)?.options

test('registered alone, a component checks its options once', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  t.equal(await checksDuring(() => app.register(counted, { probeValue: 'alone' }).ready()), 1)
  t.same(lastSeen('counted'), { probeValue: 'alone' })

  const bad = Fastify()
  t.teardown(() => bad.close())
  let rejected: unknown
  t.equal(await checksDuring(async () => { await bad.register(counted, { probeValue: 'bad' }).ready().then(() => {}, (err: unknown) => { rejected = err }) }), 1)
  t.match(rejected, { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^counted options\.probeValue: / })
})

test('through middlewareChain, the chain checks the options once and the component takes them as checked', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  t.equal(await checksDuring(async () => {
    await middlewareChain(app, { middleware: { counted: { probeValue: 'chain' } }, authMiddleware: { probeValue: 'auth' } }, { components })
    await app.ready()
  }), 2, 'one check each for counted and auth')
  t.same(lastSeen('counted'), { probeValue: 'chain' })
  t.same(lastSeen('auth'), { probeValue: 'auth' })

  // resolveRecipe's steps are checked, frozen copies; registering one does not check it again.
  const given = { probeValue: 'steps' }
  let steps: ReturnType<typeof resolveRecipe> = []
  t.equal(await checksDuring(() => { steps = resolveRecipe({ middleware: { counted: given } }, components) }), 1)
  const step = steps[0]!
  t.not(step.options, given, 'a copy, not the caller\'s object')
  t.ok(Object.isFrozen(step.options))
  const direct = Fastify()
  t.teardown(() => direct.close())
  t.equal(await checksDuring(() => direct.register(step.component, step.options).ready()), 0)
  t.same(lastSeen('counted'), { probeValue: 'steps' })

  const bad = Fastify()
  t.teardown(() => bad.close())
  let rejected: unknown
  t.equal(await checksDuring(() => middlewareChain(bad, { middleware: { counted: { probeValue: 'bad' } } }, { components }).catch((err: unknown) => { rejected = err })), 1)
  t.match(rejected, { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^middleware\.counted\.probeValue: / })
  t.notOk(bad.hasRequestDecorator('scope'), 'nothing registered')
})

test('from a config file, the loader checks each section once, with the paths as written; neither the chain nor the component checks it again', async (t) => {
  const dir = t.testdir({})
  const file = join(dir, 'gatehouse.yaml')
  writeFileSync(file, [
    'middleware:',
    '  counted:',
    '    probe_value: file',
    '    verifiers:',
    '      - max_age: 60',
    'auth_middleware:',
    '  probe_value: file-auth'
  ].join('\n'))
  let config: Awaited<ReturnType<typeof loadRecipe>> = {}
  t.equal(await checksDuring(async () => { config = await loadRecipe(file, { components }) }), 2, 'loadRecipe: once per section')
  const app = Fastify()
  t.teardown(() => app.close())
  t.equal(await checksDuring(async () => {
    await middlewareChain(app, config, { components })
    await app.ready()
  }), 0, 'the chain and the components take the sections as checked')
  t.same(lastSeen('counted'), { probeValue: 'file', verifiers: [{ maxAge: 60 }] })
  t.same(lastSeen('auth'), { probeValue: 'file-auth' })

  // recipeFromConfig (a parsed object) is the same path.
  let fromObject: ReturnType<typeof recipeFromConfig> = {}
  t.equal(await checksDuring(() => { fromObject = recipeFromConfig({ middleware: { counted: { probe_value: 'parsed' } } }, { components }) }), 1)
  const second = Fastify()
  t.teardown(() => second.close())
  t.equal(await checksDuring(() => middlewareChain(second, fromObject, { components }).then(() => second.ready())), 0)
  t.same(lastSeen('counted'), { probeValue: 'parsed' })

  // Errors still name the path as written in the file, and are the loader's.
  const cases: Array<[unknown, RegExp]> = [
    [{ middleware: { counted: { probe_value: 'ok', verifiers: [{ max_age: -1 }] } } }, /^middleware\.counted\.verifiers\[0\]\.max_age: expected integer to be greater or equal to 0/],
    [{ auth_middleware: { probe_value: 'ok', verifiers: [{ max_age: 'soon' }] } }, /^auth_middleware\.verifiers\[0\]\.max_age: expected integer/],
    [{ middleware: { counted: { probe_value: 'bad' } } }, /^middleware\.counted\.probe_value: /],
    [{ middleware: { counted: { probeValue: 'x' } } }, /^middleware\.counted\.probeValue: unknown option \(config files use snake_case: probe_value\)/]
  ]
  for (const [bad, message] of cases) {
    t.throws(() => recipeFromConfig(bad, { components }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message })
  }
})

test('a checked section is frozen; a changed copy is checked where it is used', async (t) => {
  const config = recipeFromConfig({ middleware: { counted: { probe_value: 'frozen', verifiers: [{ max_age: 1 }] } } }, { components })
  const section = config.middleware?.counted as unknown as Options
  t.ok(Object.isFrozen(section))
  t.ok(Object.isFrozen(section.verifiers), 'nested lists too')
  t.ok(Object.isFrozen(section.verifiers?.[0]))
  t.throws(() => { (section as { probeValue: string }).probeValue = 'bad' }, TypeError)

  const app = Fastify()
  t.teardown(() => app.close())
  let rejected: unknown
  t.equal(await checksDuring(() => middlewareChain(app, { middleware: { counted: { ...section, probeValue: 'bad' } } }, { components })
    .catch((err: unknown) => { rejected = err })), 1)
  t.match(rejected, { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^middleware\.counted\.probeValue: / })

  // Checked for `counted`, the same object is checked again by another component.
  const elsewhere = Fastify()
  t.teardown(() => elsewhere.close())
  t.equal(await checksDuring(() => elsewhere.register(other, section).ready()), 1)
  t.same(lastSeen('other'), { probeValue: 'frozen', verifiers: [{ maxAge: 1 }] })

  // Free-form data is copied and frozen too; a `__proto__` key in it stays an ordinary key.
  const data = JSON.parse('{ "middleware": { "counted": { "probe_value": "p", "meta": { "__proto__": { "polluted": true } } } } }') as unknown
  const meta = (recipeFromConfig(data, { components }).middleware?.counted as unknown as Options).meta as Record<string, unknown>
  t.ok(Object.isFrozen(meta))
  t.ok(Object.hasOwn(meta, '__proto__'))
  t.equal(Object.getPrototypeOf(meta), Object.prototype)
  t.equal((meta as { polluted?: boolean }).polluted, undefined)
})

test('extendOptions: keys added to checked options are checked alone, and the result counts as checked', async (t) => {
  const config = recipeFromConfig({ middleware: { counted: { probe_value: 'base' } } }, { components })
  const section = config.middleware?.counted as Record<string, unknown>

  let extended: Record<string, unknown> = {}
  t.equal(await checksDuring(() => { extended = extendOptions(section, { extra: 2 }, 'middleware.counted') }), 0)
  t.ok(Object.isFrozen(extended))
  t.same(section, { probeValue: 'base' }, 'the section itself is unchanged')
  const app = Fastify()
  t.teardown(() => app.close())
  t.equal(await checksDuring(() => middlewareChain(app, { middleware: { counted: extended } }, { components }).then(() => app.ready())), 0)
  t.same(lastSeen('counted'), { probeValue: 'base', extra: 2 })

  t.throws(() => extendOptions(section, { extra: 0 }, 'middleware.counted'),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^middleware\.counted\.extra: expected integer to be greater or equal to 1/ })

  // A key the schema does not name: a plain merge, checked in full where it is used.
  const unknown = extendOptions(section, { nope: 1 }, 'middleware.counted')
  t.notOk(Object.isFrozen(unknown))
  const refused = Fastify()
  t.teardown(() => refused.close())
  // (TypeBox reports the unknown key before it reaches the counted one.)
  await t.rejects(middlewareChain(refused, { middleware: { counted: unknown } }, { components }),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'middleware.counted.nope: unknown option' })

  // Options not checked yet: a plain merge, checked once by the chain.
  const plain = extendOptions({ probeValue: 'ts' }, { extra: 3 }, 'middleware.counted')
  t.notOk(Object.isFrozen(plain))
  const chained = Fastify()
  t.teardown(() => chained.close())
  t.equal(await checksDuring(() => middlewareChain(chained, { middleware: { counted: plain } }, { components }).then(() => chained.ready())), 1)
  t.same(lastSeen('counted'), { probeValue: 'ts', extra: 3 })
})
