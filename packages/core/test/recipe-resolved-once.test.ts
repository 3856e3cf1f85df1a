// Issue 26, item 3: a config file's recipe and server limits are resolved
// once per load. The loader resolves them and records the result; the chain
// (for the recipe) and resolveServerLimits (for the limits) take it as it is.
// Counted on the `gatehouse:resolve` diagnostics channel (D-SERVER-60).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { defineComponent, loadRecipe, middlewareChain, pickServerLimits, resolveRecipe, resolveServerLimits, serverLimitDefaults } from '@fastify-gatehouse/core'
import { countResolves } from '../../../test-helpers/resolve-count.js'

const seen: Array<Readonly<Record<string, unknown>>> = []
const greeter = defineComponent<{ greeting: string }>({
  name: 'greeter',
  schema: Type.Object({ greeting: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  plugin: async (_app, options) => { seen.push(options) }
})
const components = [greeter]

test('a loaded recipe is resolved once: by the loader, and the chain takes its steps', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'gatehouse.yaml')
  writeFileSync(file, 'middleware:\n  greeter: { greeting: hello }\n')
  const counts = countResolves(t)
  const recipe = await loadRecipe(file, { components })
  t.equal(counts.get('recipe'), 1, 'the loader resolves it')
  t.ok(Object.isFrozen(recipe) && Object.isFrozen(recipe.middleware), 'what it resolved cannot change after')

  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, recipe, { components })
  await app.ready()
  t.equal(counts.get('recipe'), 1, 'the chain does not resolve it again')
  t.same(seen.at(-1), { greeting: 'hello' }, 'the component gets the section the loader checked')

  // Resolved against one components list only: another list resolves it anew (and may refuse it).
  const other = [defineComponent({ name: 'greeter', plugin: async () => {} })]
  t.equal(resolveRecipe(recipe, other).length, 1)
  t.equal(counts.get('recipe'), 2, 'another list: resolved again')
  // A copy is a new recipe: resolved where it is used.
  resolveRecipe({ ...recipe }, components)
  t.equal(counts.get('recipe'), 3)
})

test('a bad setting is refused by the loader, resolved once', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'bad.yaml')
  writeFileSync(file, 'middleware:\n  greeter: 5\n')
  const counts = countResolves(t)
  await t.rejects(loadRecipe(file, { components }), {
    code: 'GATEHOUSE_CORE_INVALID_OPTIONS',
    message: `${file}: middleware.greeter: expected true, false, 'on', 'off' or an options object`
  })
  t.equal(counts.get('recipe'), 1)
})

test('a file\'s server limits are resolved once: by the loader, named as written; the server takes them as they are', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'gatehouse.yaml')
  writeFileSync(file, 'server:\n  host: 127.0.0.1\n  request_timeout: 30000\n')
  const counts = countResolves(t)
  const config = await loadRecipe(file, { components })
  t.same(config.server, { host: '127.0.0.1', requestTimeout: 30_000 }, 'the section stays as written')
  t.equal(counts.get('limits'), 1, 'the loader resolves the limits')
  const limits = pickServerLimits(config.server as Record<string, unknown>)
  t.same(limits, { ...serverLimitDefaults, requestTimeout: 30_000, headersTimeout: 20_000 }, 'the limits, defaults applied')
  t.equal(resolveServerLimits(limits), limits, 'taken as they are')
  t.equal(counts.get('limits'), 1, 'not resolved again')

  // Limits from code are resolved once too, and a second call takes the result.
  const fromCode = resolveServerLimits({ requestTimeout: 10_000 })
  t.equal(fromCode.headersTimeout, 10_000)
  t.equal(resolveServerLimits(fromCode), fromCode)
  t.equal(counts.get('limits'), 2)
  // A section not from the loader: only its limit keys, as given.
  t.same(pickServerLimits({ host: 'h', bodyLimit: 10 }), { bodyLimit: 10 })

  writeFileSync(file, 'server:\n  headers_timeout: 90000\n')
  await t.rejects(loadRecipe(file, { components }), { message: `${file}: server.headers_timeout: 90000 ms must not exceed request_timeout (60000 ms): the head is part of the request` })
  t.equal(counts.get('limits'), 2 + 1, 'refused, resolved once')
})
