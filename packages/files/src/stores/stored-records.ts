import { apiKeyKind, type StoredApiKey, userKind, type StoredUser } from '@fastify-gatehouse/auth'
import { JournalFile } from './journal-file.js'
import { defaultStoreLimits } from './store-limits.js'

/**
 * Every user of a `FileUserStore` file as stored, password hashes
 * included, read with the store's own parsing (the journal, or a version 1
 * document); none when the file does not exist. A corrupt file is
 * `GATEHOUSE_AUTH_STORE_FILE` naming it. Nothing is written. For moving
 * users to another store (`gatehouse import`): the hashes are secrets.
 */
export async function readStoredUsers (path: string): Promise<StoredUser[]> {
  const file = new JournalFile(path, userKind, defaultStoreLimits)
  await file.refresh()
  return [...file.table.values()]
}

/**
 * Every key of a `FileApiKeyStore` file as stored (secret hash, tags,
 * expiry, state, last use), read as {@link readStoredUsers} reads users.
 */
export async function readStoredApiKeys (path: string): Promise<StoredApiKey[]> {
  const file = new JournalFile(path, apiKeyKind, defaultStoreLimits)
  await file.refresh()
  return [...file.table.values()]
}
