import { test } from 'tap'
import Fastify from 'fastify'
import { bootWarning, defineComponent } from '@fastify-gatehouse/core'
import { waitUntil } from '../../../test-helpers/wait.js'

// Issue 25 item 16, D-LOGGING-11: a boot warning reaches a user whose app
// has Fastify's default `logger: false` (a process warning), and is written
// once, to the log, when the log writes warnings.

const first = defineComponent({ name: 'warn-first', order: 300, plugin: async (app) => { app.addHook('onRequest', async () => {}) } })
const second = defineComponent({ name: 'warn-second', order: 400, plugin: async (app) => { app.addHook('onRequest', async () => {}) } })

/** The process warnings emitted while `run` runs (they are delivered on a later tick: polled). */
async function processWarnings (run: () => Promise<void>, expected: number): Promise<Error[]> {
  const seen: Error[] = []
  const listener = (warning: Error): void => { if (warning.name === 'GatehouseWarning') seen.push(warning) }
  process.on('warning', listener)
  try {
    await run()
    if (expected > 0) await waitUntil(() => seen.length >= expected, { what: 'the process warning' })
    // Nothing more arrives on the ticks after the expected ones.
    await new Promise((resolve) => setImmediate(resolve))
    return seen
  } finally {
    process.off('warning', listener)
  }
}

/** Boots an app with Fastify's default logger (none) and the two components out of order. */
async function bootOutOfOrder (): Promise<void> {
  const app = Fastify()
  await app.register(second)
  await app.register(first)
  await app.ready()
  await app.close()
}

test('logger: false (Fastify\'s default): the warning is a process warning with its code', async (t) => {
  const warnings = await processWarnings(bootOutOfOrder, 1)
  t.equal(warnings.length, 1)
  t.equal((warnings[0] as Error & { code?: string }).code, 'GATEHOUSE_CORE_LATE_COMPONENT')
  t.match(warnings[0]!.message, /^gatehouse: warn-first \(order 300\) was registered after warn-second \(order 400\)/)

  const again = await processWarnings(bootOutOfOrder, 0)
  t.same(again, [], 'the same warning once per process')
})

test('a logger that writes warnings gets the line with its code, and no process warning', async (t) => {
  const lines: Array<{ level: number, code?: string, msg: string }> = []
  const warnings = await processWarnings(async () => {
    const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
    bootWarning(app.log, 'GATEHOUSE_CORE_TEST_WARNING', 'written to the log')
    await app.close()
  }, 0)
  t.same(warnings, [])
  t.match(lines, [{ level: 40, code: 'GATEHOUSE_CORE_TEST_WARNING', msg: 'written to the log' }])
})

test('a logger that writes no warnings (silent, error) gets a process warning too', async (t) => {
  for (const level of ['silent', 'error']) {
    const warnings = await processWarnings(async () => {
      const app = Fastify({ logger: { level } })
      bootWarning(app.log, 'GATEHOUSE_CORE_TEST_WARNING', `not written at level ${level}`)
      await app.close()
    }, 1)
    t.equal(warnings.length, 1, level)
    t.equal(warnings[0]!.message, `not written at level ${level}`)
  }
  const custom = await processWarnings(async () => {
    bootWarning({ warn: () => {} }, 'GATEHOUSE_CORE_TEST_WARNING', 'a logger that names no level')
  }, 1)
  t.equal(custom.length, 1, 'a logger of yours that names no level: said both ways')
})
