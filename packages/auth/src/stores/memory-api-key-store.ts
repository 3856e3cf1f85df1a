import type { ApiKeyRecord, ApiKeyStore, IssueApiKey } from '../api-key.js'
import { ApiKeyIndex, newApiKey, publicRecord, type StoredApiKey } from './api-key-table.js'

/** API keys in memory (tests, single-process apps, keys seeded at boot). */
export class MemoryApiKeyStore implements ApiKeyStore {
  readonly #keys: StoredApiKey[] = []
  readonly #lastUsed = new Map<string, number>()
  #index = new ApiKeyIndex([])

  #reindex (): void {
    this.#index = new ApiKeyIndex(this.#keys)
  }

  async issue (input: IssueApiKey): Promise<{ key: string, record: ApiKeyRecord }> {
    const { key, stored } = newApiKey(input, new Date())
    this.#keys.push(stored)
    this.#reindex()
    return { key, record: publicRecord(stored) }
  }

  verify (key: string): ApiKeyRecord | null {
    const now = Date.now()
    const record = this.#index.verify(key, now)
    if (record !== null) this.#lastUsed.set(record.keyId, now)
    return record
  }

  async revoke (keyId: string): Promise<boolean> {
    const stored = this.#keys.find((k) => k.keyId === keyId)
    if (stored === undefined) return false
    stored.enabled = false
    this.#reindex()
    return true
  }

  async delete (keyId: string): Promise<boolean> {
    const at = this.#keys.findIndex((k) => k.keyId === keyId)
    if (at === -1) return false
    this.#keys.splice(at, 1)
    this.#lastUsed.delete(keyId)
    this.#reindex()
    return true
  }

  async list (): Promise<ApiKeyRecord[]> {
    return this.#keys.map((stored) => {
      const used = this.#lastUsed.get(stored.keyId)
      return publicRecord(used === undefined ? stored : { ...stored, lastUsedAt: new Date(used).toISOString() })
    })
  }
}
