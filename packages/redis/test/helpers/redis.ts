import { spawnSync } from 'node:child_process'
import { createConnection } from 'node:net'
import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { HANG_CEILING_MS } from '../../../../test-helpers/wait.js'

export const REDIS_URL = 'redis://127.0.0.1:6379/0'
const REQUIRED = process.env.GATEHOUSE_REQUIRE_REDIS === '1'

/**
 * Whether a Redis answers PING on 127.0.0.1:`port` within `timeout` ms. A
 * missing Redis refuses the connection at once; the long default is for a
 * present one on a busy machine, which must not be mistaken for a missing one.
 */
export async function redisAnswers (port = 6379, timeout = 30_000): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    let reply = ''
    const finish = (ok: boolean): void => { clearTimeout(timer); socket.destroy(); resolve(ok) }
    const timer = setTimeout(() => finish(false), timeout)
    socket.on('connect', () => socket.write('PING\r\n'))
    socket.on('data', (chunk) => { reply += chunk.toString(); if (reply.includes('\r\n')) finish(reply.startsWith('+PONG')) })
    socket.on('error', () => finish(false))
  })
}

/**
 * Test options for tests that need the Redis on 127.0.0.1:6379: `{}` when it
 * answers; `{ skip }` with a visible reason when it does not; and when
 * GATEHOUSE_REQUIRE_REDIS=1 (CI), a missing Redis is an error instead.
 */
export async function needRedis (): Promise<{ skip?: string }> {
  if (await redisAnswers()) return {}
  if (REQUIRED) throw new Error('GATEHOUSE_REQUIRE_REDIS=1 but no Redis answers on 127.0.0.1:6379')
  return { skip: 'no Redis on 127.0.0.1:6379 (set GATEHOUSE_REQUIRE_REDIS=1 to fail instead)' }
}

/**
 * Timeouts for stores in tests that are not about Redis faults: a loaded
 * machine can starve a test process for longer than the default
 * commandTimeout (1 s), and the timer then fires before the reply is read: a
 * 503 no test asked for. Only a hang reaches these; fault tests set their own.
 */
export const PATIENT_TIMEOUTS = Object.freeze({ commandTimeout: HANG_CEILING_MS, connectTimeout: HANG_CEILING_MS })

/** A prefix no other test (or agent) uses. */
export function testPrefix (what: string): string {
  return `gatehouse-test:${randomUUID()}:${what}:`
}

/** Deletes every key under `prefix` (SCAN, bounded), then closes the client it opened. */
export async function cleanPrefix (prefix: string, url = REDIS_URL): Promise<number> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 30_000, commandTimeout: 30_000 })
  client.on('error', () => {})
  let deleted = 0
  try {
    await client.connect()
    let cursor = '0'
    for (let round = 0; round < 10_000; round++) {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)
      if (keys.length > 0) deleted += await client.del(...keys)
      cursor = next
      if (cursor === '0') break
    }
  } finally {
    client.disconnect()
  }
  return deleted
}

/**
 * Like {@link needRedis}, for tests that also start redis-server processes
 * of their own (fault tests): redis-server must be on PATH.
 */
export async function needRedisServer (): Promise<{ skip?: string }> {
  const shared = await needRedis()
  if (shared.skip !== undefined) return shared
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0) return {}
  if (REQUIRED) throw new Error('GATEHOUSE_REQUIRE_REDIS=1 but redis-server is not on PATH')
  return { skip: 'redis-server is not on PATH (set GATEHOUSE_REQUIRE_REDIS=1 to fail instead)' }
}
