import { test } from 'tap'
import { openStore } from '@fastify-gatehouse/core'
import { postgresDriver } from '../src/index.js'
import { driverConformance } from '../../../test-helpers/conformance/drivers.js'
import { FAST_SCRYPT, ownDatabase } from './helpers/identity.js'
import { needPostgres } from './helpers/postgres.js'
import { PATIENT } from './helpers/stores.js'

const postgres = await needPostgres()

test('the postgres driver: users, API keys, sessions and lockout pass the conformance suites of their roles', postgres, async (t) => {
  const { url } = await ownDatabase(t)
  // Each open gets a schema of its own (migrated on connect): a fresh, empty store.
  let n = 0
  await driverConformance(t, postgresDriver, {
    section: () => ({ url, schema: `driver_${n++}`, migrate: true, poolSize: 2, scrypt: FAST_SCRYPT, ...PATIENT })
  })
})

test('the postgres driver checks its own section and offers each store only its options', postgres, async (t) => {
  const { url } = await ownDatabase(t)
  await t.rejects(openStore(postgresDriver, 'users', { url, pool_size: 2 }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^store\.pool_size: unknown option/ })
  await t.rejects(openStore(postgresDriver, 'users', { url, poolSize: '2' }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^store\.poolSize: expected integer/ })
  // A section with the options of every store opens each of them: the lockout store takes no cache, the user store no sweep.
  const section = { url, schema: 'driver_all', migrate: true, poolSize: 2, cacheSize: 10, sweepInterval: 0, lastUsedFlushInterval: 1000, ...PATIENT }
  for (const role of ['users', 'apiKeys', 'sessions', 'lockout'] as const) {
    const opened = await openStore(postgresDriver, role, section)
    t.ok(opened.store, role)
    await opened.close()
  }
})
