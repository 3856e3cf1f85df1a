// Issue 14, item 8: a Redis store is made by an async factory that connects,
// and fails at boot with a coded error when Redis is not there.
import { test } from 'tap'
import { createServer } from 'node:net'
import { Redis } from 'ioredis'
import { RedisLockoutStore, RedisSessionStore } from '@fastify-gatehouse/redis'
import { needRedis, REDIS_URL, testPrefix } from './helpers/redis.js'

const redis = await needRedis()

/** A port on 127.0.0.1 where nothing listens. */
async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

test('connect() rejects with GATEHOUSE_REDIS_CONNECT when Redis is not there, naming the store and address, never the password', async (t) => {
  const port = await freePort()
  for (const Store of [RedisSessionStore, RedisLockoutStore]) {
    const started = Date.now()
    const err = await Store.connect({ url: `redis://user:s3cret@127.0.0.1:${port}/0`, connectTimeout: 300 }).then(() => null, (e: Error) => e)
    t.match(err, { code: 'GATEHOUSE_REDIS_CONNECT', statusCode: 500, message: new RegExp(`^${Store.name} cannot reach Redis at 127\\.0\\.0\\.1:${port}: no answer within 300 ms`) }, Store.name)
    t.notMatch(err?.message, /s3cret/, 'no password in the message')
    t.ok(Date.now() - started < 30_000, 'gives up after connectTimeout, not never')
  }
})

test('connect() refuses bad options before connecting', async (t) => {
  await t.rejects(RedisSessionStore.connect({ url: 'http://127.0.0.1:6379' }), { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS', message: /unsupported scheme "http:"/ })
  await t.rejects(RedisLockoutStore.connect({} as never), { code: 'GATEHOUSE_REDIS_INVALID_OPTIONS', message: /RedisLockoutStore url/ })
})

test('connect() answers a store that is ready: the first call needs no connection', redis, async (t) => {
  const store = await RedisSessionStore.connect({ url: REDIS_URL, prefix: testPrefix('sess') })
  t.teardown(async () => { await store.close() })
  t.equal(store.client.status, 'ready', 'connected before the first request')
  t.equal(await store.get('nothing-here'), null)
})

test('connect() with a client of yours: a lazy one is connected, and close() leaves it open', redis, async (t) => {
  const client = new Redis(REDIS_URL, { lazyConnect: true })
  t.teardown(() => { client.disconnect() })
  t.equal(client.status, 'wait')
  const store = await RedisLockoutStore.connect({ client }, testPrefix('lock'))
  t.equal(client.status, 'ready')
  await store.close()
  t.equal(await client.ping(), 'PONG')
})

test('connect() with a client of yours that cannot connect: rejects, and the client is not closed by the store', async (t) => {
  const port = await freePort()
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, retryStrategy: () => 100, maxRetriesPerRequest: 0 })
  client.on('error', () => {})
  t.teardown(() => { client.disconnect() })
  await t.rejects(RedisSessionStore.connect({ client, connectTimeout: 300 }), { code: 'GATEHOUSE_REDIS_CONNECT', message: /ECONNREFUSED/ })
  t.not(client.status, 'end', 'still yours to close')
})
