import { test } from 'tap'
import { openStore } from '@fastify-gatehouse/core'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { memoryDriver } from '@fastify-gatehouse/components'
import { driverConformance } from '../../../test-helpers/conformance/drivers.js'

const FAST = { N: 1024, r: 8, p: 1 }

test('the memory driver: users, API keys, sessions and lockout pass the conformance suites of their roles', async (t) => {
  await driverConformance(t, memoryDriver, { section: () => ({ scrypt: FAST }) })
})

test('the memory driver: each open is a new, empty store; its section is checked', async (t) => {
  const a = await openStore(memoryDriver, 'users', {})
  const b = await openStore(memoryDriver, 'users', { scrypt: FAST })
  t.ok(a.store instanceof MemoryUserStore)
  await b.store.add('alice', { password: 'pw-alice' })
  t.equal(await a.store.get('alice'), null, 'not shared')
  await t.rejects(openStore(memoryDriver, 'users', { scrypt: { N: 1024 } }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^store\.scrypt\.r: is required/ })
  await t.rejects(openStore(memoryDriver, 'lockout', { dir: '/tmp' }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^store\.dir: unknown option/ })
  t.same(Object.keys(memoryDriver.open), ['users', 'apiKeys', 'sessions', 'lockout'])
})
