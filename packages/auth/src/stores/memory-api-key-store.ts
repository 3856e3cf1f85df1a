import { sha256 } from '@fastify-gatehouse/core'
import { parseApiKey, type ApiKeyRecord, type ApiKeyStore, type IssueApiKey } from '../api-key.js'
import { GATEHOUSE_AUTH_STORE_INPUT } from '../errors.js'
import { ApiKeyTable, newApiKey, publicRecord } from './api-key-table.js'

/**
 * API keys in memory (tests, single-process apps, keys seeded at boot).
 * D-AUTH-27: keys by id with the index beside them; every change is O(1).
 */
export class MemoryApiKeyStore implements ApiKeyStore {
  readonly #keys = new ApiKeyTable()
  readonly #lastUsed = new Map<string, number>()

  async issue (input: IssueApiKey): Promise<{ key: string, record: ApiKeyRecord }> {
    let issued = newApiKey(input, new Date())
    // 64 random bits: a clash is all but impossible, and never overwrites a key.
    while (this.#keys.has(issued.stored.keyId)) issued = newApiKey(input, new Date())
    this.#keys.set(issued.stored.keyId, issued.stored)
    return { key: issued.key, record: publicRecord(issued.stored) }
  }

  /**
   * Adds a key the caller already holds (e.g. from an environment
   * variable); only its hash is kept. Throws `GATEHOUSE_AUTH_STORE_INPUT`
   * for a malformed key or a key id already present.
   */
  async add (key: string, input: IssueApiKey): Promise<ApiKeyRecord> {
    const parts = parseApiKey(key)
    if (parts === null) throw new GATEHOUSE_AUTH_STORE_INPUT('a key must look like gak_<16 hex>_<secret>')
    if (this.#keys.has(parts.keyId)) throw new GATEHOUSE_AUTH_STORE_INPUT(`key ${parts.keyId} already exists`)
    const { stored } = newApiKey(input, new Date())
    const own = { ...stored, keyId: parts.keyId, secretHash: `sha256$${sha256(parts.secret)}` }
    this.#keys.set(own.keyId, own)
    return publicRecord(own)
  }

  verify (key: string): ApiKeyRecord | null {
    const now = Date.now()
    const record = this.#keys.verify(key, now)
    if (record !== null) this.#lastUsed.set(record.keyId, now)
    return record
  }

  async revoke (keyId: string): Promise<boolean> {
    const stored = this.#keys.get(keyId)
    if (stored === undefined) return false
    // A new object: records handed out keep what they said.
    if (stored.enabled) this.#keys.set(keyId, { ...stored, enabled: false })
    return true
  }

  async delete (keyId: string): Promise<boolean> {
    if (!this.#keys.delete(keyId)) return false
    this.#lastUsed.delete(keyId)
    return true
  }

  async list (): Promise<ApiKeyRecord[]> {
    return [...this.#keys.values()].map((stored) => {
      const used = this.#lastUsed.get(stored.keyId)
      return publicRecord(used === undefined ? stored : { ...stored, lastUsedAt: new Date(used).toISOString() })
    })
  }
}
