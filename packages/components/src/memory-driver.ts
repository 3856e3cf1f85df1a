import { Type } from '@sinclair/typebox'
import { defineStoreDriver, type OpenedStore } from '@fastify-gatehouse/core'
import { MemoryApiKeyStore, MemoryLockoutStore, MemoryUserStore, scryptParamsSchema } from '@fastify-gatehouse/auth'
import { MemorySessionStore } from '@fastify-gatehouse/session'

/**
 * The memory family's `store:` section: nothing to connect to; `scrypt`
 * sets the parameters of new password hashes (default `DEFAULT_SCRYPT`).
 */
export const memoryStoreSchema = Type.Object({
  scrypt: Type.Optional(scryptParamsSchema)
}, { additionalProperties: false })

// A memory store holds no timer or connection: closing it forgets nothing
// and releases nothing.
function opened<S> (store: S): OpenedStore<S> {
  return { store, close: async () => {} }
}

/**
 * The memory stores of auth and session as one store driver (kind
 * `memory`): each open makes a new, empty store, which lives as long as the
 * process and is not shared with another. Here, beside `allComponents`,
 * because the family spans two components that do not depend on each
 * other (D-STORES-05).
 */
export const memoryDriver = defineStoreDriver({
  kind: 'memory',
  schema: memoryStoreSchema,
  open: {
    users: async (section) => opened(new MemoryUserStore(section.scrypt === undefined ? {} : { scrypt: section.scrypt })),
    apiKeys: async () => opened(new MemoryApiKeyStore()),
    sessions: async () => opened(new MemorySessionStore()),
    lockout: async () => opened(new MemoryLockoutStore())
  }
})
