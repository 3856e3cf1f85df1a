import { Type } from '@sinclair/typebox'
import { isPlainObject } from '@fastify-gatehouse/core'
import type { RedisLockoutStore, RedisSessionStore } from '@fastify-gatehouse/redis'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'

// @fastify-gatehouse/redis (and ioredis) load only when a config file names a Redis
// store: other CLI commands and memory-store servers start without them.
const redisPackage = async () => await import('@fastify-gatehouse/redis')

/** A store in a config file: `{ redis: 'redis://host:port/db', prefix? }`. */
export interface RedisStoreConfig { redis: string, prefix?: string }

/** Schema of a store in a config file (`server_app.login.store`). */
export const redisStoreSchema = Type.Object({
  redis: Type.String({ minLength: 1 }),
  prefix: Type.Optional(Type.String({ minLength: 1 }))
}, { additionalProperties: false })

/** Checks a store given in a config file; the error names `path` as written in the file. */
export async function redisStoreConfig (value: unknown, path: string): Promise<RedisStoreConfig> {
  if (!isPlainObject(value) || typeof value.redis !== 'string') throw new GATEHOUSE_SERVER_INVALID_OPTIONS(path, 'expected { redis: "redis://host:port/db" } (a store in a config file is a Redis URL)')
  for (const key of Object.keys(value)) {
    if (key !== 'redis' && key !== 'prefix') throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}.${key}`, 'unknown option')
  }
  if (value.prefix !== undefined && typeof value.prefix !== 'string') throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}.prefix`, 'expected a string')
  const { checkRedisUrl } = await redisPackage()
  checkRedisUrl(value.redis, `${path}.redis`)
  return { redis: value.redis, ...(value.prefix === undefined ? {} : { prefix: value.prefix }) }
}

/** The host:port of a Redis URL, for messages (never the password; D-REDIS-05). */
export function redisHost (url: string): string {
  const { hostname, port } = new URL(url)
  return `${hostname}:${port === '' ? '6379' : port}`
}

// D-REDIS-08: still the deprecated constructors (serve warns, D-REDIS-05) until serve moves to connect().
export async function openSessionStore (config: RedisStoreConfig): Promise<RedisSessionStore> {
  return new (await redisPackage()).RedisSessionStore({ url: config.redis, ...(config.prefix === undefined ? {} : { prefix: config.prefix }) })
}

export async function openLockoutStore (config: RedisStoreConfig): Promise<RedisLockoutStore> {
  return new (await redisPackage()).RedisLockoutStore({ url: config.redis, ...(config.prefix === undefined ? {} : { prefix: config.prefix }) })
}
