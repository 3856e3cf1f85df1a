import type { ApiKeyRecord, ApiKeyStore, IssueApiKey } from '../api-key.js'
import { apiKeyDocumentSchema, ApiKeyIndex, emptyApiKeyDocument, newApiKey, publicRecord, type ApiKeyDocument } from './api-key-table.js'
import { JsonFile } from './json-file.js'

/** Options of {@link FileApiKeyStore.open}. */
export interface FileApiKeyStoreOptions {
  /** How often (ms) the file is checked for changes made by other processes. Default: 250. */
  watchInterval?: number
  /** How often (ms) last-use times are written back. Default: 60000. */
  lastUsedFlushInterval?: number
}

/**
 * API keys in one JSON file (mode 0600), shared by the server and the
 * `gatehouse keys` CLI: every change is made under a lock and written
 * atomically; a running server notices changes by other processes within
 * `watchInterval` and verifies from memory in O(1).
 * D-AUTH-09 (lock, atomic write, polling) and D-AUTH-08 (lastUsedAt written every 60 s and on close).
 */
export class FileApiKeyStore implements ApiKeyStore {
  readonly #file: JsonFile<ApiKeyDocument>
  #document: ApiKeyDocument
  #index: ApiKeyIndex
  // keyId → last use (ms); written back to the file every flush interval.
  readonly #used = new Map<string, number>()
  readonly #timers: NodeJS.Timeout[] = []
  #checking = false

  private constructor (file: JsonFile<ApiKeyDocument>, document: ApiKeyDocument) {
    this.#file = file
    this.#document = document
    this.#index = new ApiKeyIndex(document.keys)
  }

  /** Opens (or starts) the store at `path`; a corrupt file is an error naming it. */
  static async open (path: string, options: FileApiKeyStoreOptions = {}): Promise<FileApiKeyStore> {
    const file = new JsonFile(path, apiKeyDocumentSchema, emptyApiKeyDocument)
    const store = new FileApiKeyStore(file, await file.read())
    const watch = setInterval(() => { store.#reloadIfChanged() }, options.watchInterval ?? 250)
    const flush = setInterval(() => { store.#flushLastUsed() }, options.lastUsedFlushInterval ?? 60_000)
    watch.unref()
    flush.unref()
    store.#timers.push(watch, flush)
    return store
  }

  /** The file's path. */
  get path (): string {
    return this.#file.path
  }

  #adopt (document: ApiKeyDocument): void {
    this.#document = document
    this.#index = new ApiKeyIndex(document.keys)
  }

  async #reloadIfChanged (): Promise<void> {
    if (this.#checking) return
    this.#checking = true
    try {
      if (await this.#file.changed()) this.#adopt(await this.#file.read())
    } catch {
      // D-AUTH-09: a half-visible or corrupt file: keep serving what was last valid; the
      // next change is picked up.
    } finally {
      this.#checking = false
    }
  }

  async #flushLastUsed (): Promise<void> {
    if (this.#used.size === 0) return
    const used = new Map(this.#used)
    this.#used.clear()
    await this.#file.update((doc) => {
      for (const key of doc.keys) {
        const ms = used.get(key.keyId)
        if (ms === undefined) continue
        const at = new Date(ms).toISOString()
        if (key.lastUsedAt === null || key.lastUsedAt < at) key.lastUsedAt = at
      }
    }).then(() => {}, () => {})
  }

  async issue (input: IssueApiKey): Promise<{ key: string, record: ApiKeyRecord }> {
    const { key, stored } = newApiKey(input, new Date())
    await this.#file.update((doc) => { doc.keys.push(stored) })
    this.#adopt(await this.#file.read())
    return { key, record: publicRecord(stored) }
  }

  verify (key: string): ApiKeyRecord | null {
    const now = Date.now()
    const record = this.#index.verify(key, now)
    if (record !== null) this.#used.set(record.keyId, now)
    return record
  }

  async #change (keyId: string, change: (doc: ApiKeyDocument, at: number) => void): Promise<boolean> {
    const found = await this.#file.update((doc) => {
      const at = doc.keys.findIndex((k) => k.keyId === keyId)
      if (at !== -1) change(doc, at)
      return at !== -1
    })
    this.#adopt(await this.#file.read())
    return found
  }

  revoke (keyId: string): Promise<boolean> {
    return this.#change(keyId, (doc, at) => { doc.keys[at]!.enabled = false })
  }

  delete (keyId: string): Promise<boolean> {
    return this.#change(keyId, (doc, at) => { doc.keys.splice(at, 1) })
  }

  async list (): Promise<ApiKeyRecord[]> {
    await this.#reloadIfChanged()
    return this.#document.keys.map(publicRecord)
  }

  /** Stops watching and writes pending last-use times. */
  async close (): Promise<void> {
    for (const timer of this.#timers.splice(0)) clearInterval(timer)
    await this.#flushLastUsed()
  }
}
