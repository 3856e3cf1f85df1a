import type { RedisLockoutStore, RedisSessionStore } from '@fastify-gatehouse/redis'
import { redisPackage } from './drivers.js'
import type { RedisStoreConfig } from './store-config.js'

/** The host:port of a Redis URL, for messages (never the password; D-REDIS-05). */
export function redisHost (url: string): string {
  const { hostname, port } = new URL(url)
  return `${hostname}:${port === '' ? '6379' : port}`
}

// D-REDIS-08: still the deprecated constructors (serve warns, D-REDIS-05) until serve moves to connect().
export async function openSessionStore (config: RedisStoreConfig): Promise<RedisSessionStore> {
  return new (await redisPackage()).RedisSessionStore({ url: config.url, ...(config.prefix === undefined ? {} : { prefix: config.prefix }) })
}

export async function openLockoutStore (config: RedisStoreConfig): Promise<RedisLockoutStore> {
  return new (await redisPackage()).RedisLockoutStore({ url: config.url, ...(config.prefix === undefined ? {} : { prefix: config.prefix }) })
}
