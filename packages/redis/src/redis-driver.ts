import { Type } from '@sinclair/typebox'
import { defineStoreDriver } from '@fastify-gatehouse/core'
import { RedisLockoutStore } from './redis-lockout-store.js'
import { RedisSessionStore } from './redis-session-store.js'

/**
 * The Redis family's `store:` section: the URL (checked by the stores'
 * own `checkRedisUrl`, which never shows the password), the key prefix
 * (default per store) and the timeouts of the client each store opens.
 */
export const redisStoreSchema = Type.Object({
  url: Type.String({ minLength: 1 }),
  prefix: Type.Optional(Type.String({ minLength: 1 })),
  commandTimeout: Type.Optional(Type.Integer()),
  connectTimeout: Type.Optional(Type.Integer())
}, { additionalProperties: false })

/**
 * The Redis stores as a store driver (kind `redis`): sessions and lockout
 * counters, each store with a client of its own, which `close` quits
 * (D-STORES-07).
 */
export const redisDriver = defineStoreDriver({
  kind: 'redis',
  schema: redisStoreSchema,
  open: {
    sessions: async (section) => {
      const store = await RedisSessionStore.connect(section)
      return { store, close: async () => { await store.close() } }
    },
    lockout: async (section) => {
      const store = await RedisLockoutStore.connect(section)
      return { store, close: async () => { await store.close() } }
    }
  }
})
