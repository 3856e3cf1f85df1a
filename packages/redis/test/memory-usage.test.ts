import { test } from 'tap'
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { newSessionId, sessionKey } from '@fastify-gatehouse/session'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL } from './helpers/redis.js'

const redis = await needRedis()

// The figure in docs/scaling.md ("Sizing Redis"): MEMORY USAGE of a real
// signed-in session, as the session component writes it after a login.
test('memory per session: a signed-in record and its index entry stay small', redis, async (t) => {
  // As long as the default prefix (gatehouse:sess:, 15 characters), and unique.
  const prefix = `gh:${randomBytes(4).toString('hex')}:sess:`
  const store = await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  const client = new Redis(REDIS_URL)
  t.teardown(async () => { await store.close(); client.disconnect(); await cleanPrefix(prefix) })
  const now = Date.now()
  // As a password login writes it: version 1, via and a credential stamp.
  const record = { identity: 'alice@example.com', tags: ['member', 'admin'], data: {}, createdAt: now, expiresAt: now + 3_600_000, version: 1, via: 'password', stamp: 'Qm9vdHN0cmFwU3RhbXA' }
  const keys = Array.from({ length: 100 }, () => sessionKey(newSessionId()))
  for (const key of keys) await store.set(key, record, null)
  const one = Number(await client.call('MEMORY', 'USAGE', `${prefix}${keys[0]}`, 'SAMPLES', '0'))
  const index = Number(await client.call('MEMORY', 'USAGE', `${prefix}identity:alice@example.com`, 'SAMPLES', '0'))
  t.comment(`one signed-in session record: ${one} bytes; identity index with 100 members: ${index} bytes (${(index / 100).toFixed(0)} bytes a member)`)
  t.ok(one > 100 && one < 640, `record ${one} bytes`)
  t.ok(index / 100 < 150, `index ${(index / 100).toFixed(0)} bytes a member`)
  const withData = { ...record, data: { cart: [1, 2, 3], theme: 'dark', csrf: 'x'.repeat(43) }, version: 2 }
  t.equal(await store.set(keys[1]!, withData, { key: keys[1]!, version: 1 }), 'written')
  const bigger = Number(await client.call('MEMORY', 'USAGE', `${prefix}${keys[1]}`, 'SAMPLES', '0'))
  t.comment(`with ~100 bytes of app data: ${bigger} bytes`)
  t.ok(bigger > one && bigger < one + 200)
  // An OIDC sign-in in progress: anonymous, one transaction (state, nonce, PKCE verifier).
  const pending = { identity: null, tags: [], data: { oidc: { s: 'x'.repeat(43), n: 'y'.repeat(43), v: 'z'.repeat(43) } }, createdAt: now, expiresAt: now + 3_600_000, version: 1, via: null, stamp: null }
  await store.set(keys[2]!, pending, { key: keys[2]!, version: 1 })
  const anonymous = Number(await client.call('MEMORY', 'USAGE', `${prefix}${keys[2]}`, 'SAMPLES', '0'))
  t.comment(`anonymous with an OIDC transaction: ${anonymous} bytes`)
  t.ok(anonymous < 800)
})
