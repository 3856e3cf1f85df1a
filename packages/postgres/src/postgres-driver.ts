import { Type, type Static } from '@sinclair/typebox'
import { defineStoreDriver } from '@fastify-gatehouse/core'
import { scryptParamsSchema } from '@fastify-gatehouse/auth'
import { PostgresApiKeyStore } from './postgres-api-key-store.js'
import { PostgresLockoutStore } from './postgres-lockout-store.js'
import { PostgresSessionStore } from './postgres-session-store.js'
import { PostgresUserStore } from './postgres-user-store.js'

/**
 * The PostgreSQL family's `store:` section: the URL and the options of
 * the stores (their ranges checked by the stores, which name the option).
 * Each role's store takes the options that apply to it; the others are
 * left out (a session store has no cache, a user store no sweep).
 */
export const postgresStoreSchema = Type.Object({
  url: Type.String({ minLength: 1 }),
  schema: Type.Optional(Type.String({ minLength: 1 })),
  tablePrefix: Type.Optional(Type.String()),
  migrate: Type.Optional(Type.Boolean()),
  connectTimeout: Type.Optional(Type.Integer()),
  statementTimeout: Type.Optional(Type.Integer()),
  poolSize: Type.Optional(Type.Integer()),
  cacheSize: Type.Optional(Type.Integer()),
  negativeCacheSize: Type.Optional(Type.Integer()),
  recheckInterval: Type.Optional(Type.Integer()),
  maxStale: Type.Optional(Type.Integer()),
  lastUsedFlushInterval: Type.Optional(Type.Integer()),
  sweepInterval: Type.Optional(Type.Integer()),
  sweepBatch: Type.Optional(Type.Integer()),
  scrypt: Type.Optional(scryptParamsSchema)
}, { additionalProperties: false })

type Section = Static<typeof postgresStoreSchema>

// The options every store takes, and those of the stores that cache rows
// (users, API keys) or sweep expired ones (sessions, lockout).
function common ({ url, schema, tablePrefix, migrate, connectTimeout, statementTimeout, poolSize }: Section) {
  return { url, schema, tablePrefix, migrate, connectTimeout, statementTimeout, poolSize }
}
function cached ({ cacheSize, negativeCacheSize, recheckInterval, maxStale }: Section) {
  return { cacheSize, negativeCacheSize, recheckInterval, maxStale }
}
function swept ({ sweepInterval, sweepBatch }: Section) {
  return { sweepInterval, sweepBatch }
}
/** `options` without its undefined keys: the stores refuse a key they do not know, and take absent ones as their default. */
function given<T extends object> (options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as T
}

/**
 * The PostgreSQL stores as a store driver (kind `postgres`): users, API
 * keys, sessions and lockout counters, each store with a pool of its own,
 * which `close` ends (D-STORES-07).
 */
export const postgresDriver = defineStoreDriver({
  kind: 'postgres',
  schema: postgresStoreSchema,
  open: {
    users: async (section) => {
      const store = await PostgresUserStore.connect(given({ ...common(section), ...cached(section), scrypt: section.scrypt }))
      return { store, close: async () => { await store.close() } }
    },
    apiKeys: async (section) => {
      const store = await PostgresApiKeyStore.connect(given({ ...common(section), ...cached(section), lastUsedFlushInterval: section.lastUsedFlushInterval }))
      return { store, close: async () => { await store.close() } }
    },
    sessions: async (section) => {
      const store = await PostgresSessionStore.connect(given({ ...common(section), ...swept(section) }))
      return { store, close: async () => { await store.close() } }
    },
    lockout: async (section) => {
      const store = await PostgresLockoutStore.connect(given({ ...common(section), ...swept(section) }))
      return { store, close: async () => { await store.close() } }
    }
  }
})
