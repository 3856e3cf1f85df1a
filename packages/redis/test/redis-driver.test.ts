import { test } from 'tap'
import { openStore } from '@fastify-gatehouse/core'
import { redisDriver } from '@fastify-gatehouse/redis'
import { driverConformance } from '../../../test-helpers/conformance/drivers.js'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from './helpers/redis.js'

const redis = await needRedis()

test('the redis driver: sessions and lockout pass the conformance suites of their roles', redis, async (t) => {
  // Each open gets a prefix of its own: a fresh, empty store.
  const prefixes: string[] = []
  t.teardown(async () => { for (const prefix of prefixes) await cleanPrefix(prefix) })
  await driverConformance(t, redisDriver, {
    section: (role) => {
      const prefix = testPrefix(role === 'sessions' ? 'sess' : 'lock')
      prefixes.push(prefix)
      return { url: REDIS_URL, prefix, ...PATIENT_TIMEOUTS }
    }
  })
})

test('the redis driver checks its own section and offers no other role', async (t) => {
  await t.rejects(openStore(redisDriver, 'sessions', { url: REDIS_URL, table_prefix: 'x' }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^store\.table_prefix: unknown option/ })
  await t.rejects(openStore(redisDriver, 'users', { url: REDIS_URL }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'store: the redis driver offers no users store (it offers sessions, lockout)' })
  await t.rejects(openStore(redisDriver, 'lockout', { url: 'http://user:secret@127.0.0.1' }), { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS', message: /^(?!.*secret)/ }, 'the URL is the store\'s own check, which never shows the password')
})
