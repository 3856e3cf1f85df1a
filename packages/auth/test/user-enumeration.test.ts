import { test } from 'tap'
import { AuthCore, hashPassword, MemoryUserStore } from '@fastify-gatehouse/auth'
import { check, COSTLY, FLOOR_MS, median } from '../../../test-helpers/conformance/user-timing.js'

test('MemoryUserStore: unknown and disabled users cost a hash', async (t) => {
  await check(t, new MemoryUserStore({ scrypt: COSTLY }))
})

test('Basic passwordHash entries: unknown names cost a hash', async (t) => {
  const core = await AuthCore.create({ basic: { known: { passwordHash: await hashPassword('right', COSTLY) } }, basicCache: { max: 0 } })
  const header = (user: string) => `Basic ${Buffer.from(`${user}:wrong`).toString('base64')}`
  const attempt = (user: string) => async () => { await Promise.resolve().then(() => core.authenticate(header(user))).catch(() => {}) }
  await attempt('warm')()
  const known = await median(attempt('known'))
  const unknown = await median(attempt('nobody'))
  t.ok(known > FLOOR_MS, `a known name costs a hash (${known.toFixed(1)} ms)`)
  t.ok(unknown > FLOOR_MS, `an unknown name costs a hash too (${unknown.toFixed(1)} ms)`)
})
