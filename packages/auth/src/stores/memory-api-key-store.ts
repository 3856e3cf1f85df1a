import { sha256 } from '@fastify-gatehouse/core'
import { parseApiKey, type ApiKeyRecord, type ApiKeyStore, type IssueApiKey } from '../api-key.js'
import { GATEHOUSE_AUTH_STORE_INPUT } from '../errors.js'
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

  /**
   * Adds a key the caller already holds (e.g. from an environment
   * variable); only its hash is kept. Throws `GATEHOUSE_AUTH_STORE_INPUT`
   * for a malformed key or a key id already present.
   */
  async add (key: string, input: IssueApiKey): Promise<ApiKeyRecord> {
    const parts = parseApiKey(key)
    if (parts === null) throw new GATEHOUSE_AUTH_STORE_INPUT('a key must look like gak_<16 hex>_<secret>')
    if (this.#keys.some((k) => k.keyId === parts.keyId)) throw new GATEHOUSE_AUTH_STORE_INPUT(`key ${parts.keyId} already exists`)
    const { stored } = newApiKey(input, new Date())
    const own = { ...stored, keyId: parts.keyId, secretHash: `sha256$${sha256(parts.secret)}` }
    this.#keys.push(own)
    this.#reindex()
    return publicRecord(own)
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
