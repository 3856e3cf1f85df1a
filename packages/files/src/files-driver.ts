import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { defineStoreDriver } from '@fastify-gatehouse/core'
import { scryptParamsSchema } from '@fastify-gatehouse/auth'
import { FileApiKeyStore } from './stores/file-api-key-store.js'
import { FileUserStore } from './stores/file-user-store.js'

/**
 * The files family's `store:` section: the folder holding `users.json` and
 * `keys.json` (as `gatehouse` names them), and the options both stores take
 * (checked by the stores, which name the option: D-AUTH-23's ranges).
 */
export const filesStoreSchema = Type.Object({
  dir: Type.String({ minLength: 1 }),
  watchInterval: Type.Optional(Type.Integer()),
  maxRecords: Type.Optional(Type.Integer()),
  maxFileBytes: Type.Optional(Type.Integer()),
  scrypt: Type.Optional(scryptParamsSchema)
}, { additionalProperties: false })

/** The file of each role in a store folder. */
export const STORE_FILES = Object.freeze({ users: 'users.json', apiKeys: 'keys.json' })

/**
 * The file stores as a store driver (kind `files`): users and API keys, each
 * in its journal file in `dir`, shared by every process that opens the same
 * folder. Closing the key store writes its last uses back; the user store
 * holds no timer (D-STORES-06).
 */
export const filesDriver = defineStoreDriver({
  kind: 'files',
  schema: filesStoreSchema,
  open: {
    users: async ({ dir, ...options }) => {
      const store = await FileUserStore.open(join(dir, STORE_FILES.users), options)
      return { store, close: async () => {} }
    },
    apiKeys: async ({ dir, scrypt: _unused, ...options }) => {
      const store = await FileApiKeyStore.open(join(dir, STORE_FILES.apiKeys), options)
      return { store, close: async () => { await store.close() } }
    }
  }
})
