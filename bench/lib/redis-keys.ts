// What a benchmark asks of a Redis it did not start (postgres.ts,
// session-list.ts): its version for the table, and removing the keys the
// run left under its prefix.
import { Redis } from 'ioredis'

/** Runs `use` on a connection to `url`, closed afterwards. */
async function withRedis<T> (url: string, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    return await use(redis)
  } finally {
    redis.disconnect()
  }
}

/** Deletes every key under `prefix`. */
export async function clearPrefix (url: string, prefix: string): Promise<void> {
  await withRedis(url, async (redis) => {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      if (keys.length > 0) await redis.del(...keys)
      cursor = next
    } while (cursor !== '0')
  })
}

/** `Redis <version>`, as INFO server says. */
export async function redisVersion (url: string): Promise<string> {
  return await withRedis(url, async (redis) => `Redis ${/redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? '?'}`)
}
