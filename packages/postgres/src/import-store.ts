import type { StoredApiKey, StoredUser } from '@fastify-gatehouse/auth'
import { checkImportedKeys, checkImportedUsers, insertAll, keyTable, userTable, type ImportCounts } from './import-records.js'
import type { PostgresConnection, PostgresStoreOptions } from './options.js'
import { PostgresStore, type ConnectOptions } from './postgres-store.js'
import { apiKeyStatements } from './sql/api-key-statements.js'
import { userStatements } from './sql/user-statements.js'

/** What {@link importStore} takes: users and keys as the file stores hold them, hashes included. */
export interface StoreRecords {
  readonly users?: readonly StoredUser[]
  readonly keys?: readonly StoredApiKey[]
}

/** What {@link importStore} did, table by table. */
export interface StoreImportCounts {
  readonly users: ImportCounts
  readonly keys: ImportCounts
}

// The connection of one import: the schema check of every store, and one transaction.
class ImportTarget extends PostgresStore {
  static async open (options: PostgresConnection & PostgresStoreOptions & ConnectOptions): Promise<ImportTarget> {
    return await PostgresStore.connected(new ImportTarget(options), options)
  }

  private constructor (options: PostgresConnection & PostgresStoreOptions & ConnectOptions) {
    super(options, 'importStore')
  }

  async write (users: readonly StoredUser[], keys: readonly StoredApiKey[]): Promise<StoreImportCounts> {
    return await this.transaction(async (client) => Object.freeze({
      users: await insertAll(client, userTable(userStatements(this.names).import, users)),
      keys: await insertAll(client, keyTable(apiKeyStatements(this.names).import, keys))
    }))
  }
}

/**
 * Copies a store's users and API keys into PostgreSQL (`gatehouse
 * import`), all or nothing: every record of both lists is checked before
 * the database is reached (`GATEHOUSE_AUTH_STORE_INPUT` naming `users[i]`
 * or `keys[i]`), then everything is written in one transaction, in which a
 * value PostgreSQL refuses is named the same way and undoes the lot.
 * Identities and key ids already there are left as they are (counted as
 * `existing`), so running it again is harmless. Connects as the stores do
 * (the schema must be current, or give `migrate: true`) and closes a pool
 * it opened.
 * D-POSTGRES-13, D-POSTGRES-20.
 */
export async function importStore (options: PostgresConnection & PostgresStoreOptions & ConnectOptions, records: StoreRecords): Promise<StoreImportCounts> {
  const users = checkImportedUsers(records?.users ?? [])
  const keys = checkImportedKeys(records?.keys ?? [])
  const target = await ImportTarget.open(options)
  try {
    return await target.write(users, keys)
  } finally {
    await target.close()
  }
}
