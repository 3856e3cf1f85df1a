import { type ApiKeyRecord, type ApiKeyStore, type IssueApiKey, apiKeyKind, newApiKey, publicRecord, type ApiKeyTable, type StoredApiKey } from '@fastify-gatehouse/auth'
import { JournalFile } from './journal-file.js'
import { checkInterval, checkKnownOptions, resolveStoreLimits, type StoreLimitOptions } from './store-limits.js'
import { TimeSlice } from './time-slice.js'

/** Options of {@link FileApiKeyStore.open}. */
export interface FileApiKeyStoreOptions extends StoreLimitOptions {
  /** How often (ms) the file is checked for changes made by other processes (0–60000). Default: 250. */
  watchInterval?: number
  /** How often (ms) last-use times are written back (1–3600000). Default: 60000. */
  lastUsedFlushInterval?: number
}

type Keys = ApiKeyTable

/**
 * API keys in one file (mode 0600), a journal shared by the server and the
 * `gatehouse keys` CLI: every change is one line appended under a lock; a
 * running server reads the lines other processes append within
 * `watchInterval` and verifies from memory in O(1).
 * D-AUTH-09 (lock, polling), D-AUTH-23 (the journal), D-AUTH-24 (reloads),
 * D-AUTH-25 (limits), D-AUTH-26 (last uses, appended every 60 s and on close).
 */
export class FileApiKeyStore implements ApiKeyStore {
  readonly #file: JournalFile<StoredApiKey, Keys>
  // keyId → last use (ms) since the last flush.
  #used = new Map<string, number>()
  readonly #timers: NodeJS.Timeout[] = []

  private constructor (file: JournalFile<StoredApiKey, Keys>) {
    this.#file = file
  }

  /** Opens (or starts) the store at `path`; a corrupt file is an error naming it (and the line). */
  static async open (path: string, options: FileApiKeyStoreOptions = {}): Promise<FileApiKeyStore> {
    checkKnownOptions('FileApiKeyStore', options, ['watchInterval', 'lastUsedFlushInterval', 'maxRecords', 'maxFileBytes'])
    const watchInterval = checkInterval('FileApiKeyStore', 'watchInterval', options.watchInterval, 250)
    const flushInterval = checkInterval('FileApiKeyStore', 'lastUsedFlushInterval', options.lastUsedFlushInterval, 60_000, 1, 3_600_000)
    const file = new JournalFile(path, apiKeyKind, resolveStoreLimits('FileApiKeyStore', options))
    await file.refresh()
    const store = new FileApiKeyStore(file)
    const watch = setInterval(() => { store.#reload() }, watchInterval)
    const flush = setInterval(() => { store.#flushLastUsed() }, flushInterval)
    watch.unref()
    flush.unref()
    store.#timers.push(watch, flush)
    return store
  }

  /** The file's path. */
  get path (): string {
    return this.#file.path
  }

  async #reload (): Promise<void> {
    try {
      await this.#file.refresh()
    } catch {
      // D-AUTH-09: a corrupt file: keep serving the keys last read; the next change is picked up.
    }
  }

  async #flushLastUsed (): Promise<void> {
    if (this.#used.size === 0) return
    const used = this.#used
    this.#used = new Map()
    // D-AUTH-26: prepared outside the lock, in slices: every key used since the last
    // flush (O(used keys)). Keys deleted meanwhile, or used as late already,
    // are skipped by whoever reads the line.
    const entries: Array<[string, string]> = []
    const slice = new TimeSlice()
    for (const [keyId, ms] of used) {
      entries.push([keyId, new Date(ms).toISOString()])
      if (slice.due()) await slice.pause()
    }
    try {
      await this.#file.change(() => ({ entry: { used: entries }, result: undefined }))
    } catch {
      // Kept for the next flush (a lock not had in time, a full disk).
      for (const [keyId, ms] of used) if ((this.#used.get(keyId) ?? 0) < ms) this.#used.set(keyId, ms)
    }
  }

  async issue (input: IssueApiKey): Promise<{ key: string, record: ApiKeyRecord }> {
    // Bad input is refused before the file is touched.
    const first = newApiKey(input, new Date())
    return await this.#file.change((keys) => {
      let issued = first
      // 64 random bits: a clash is all but impossible, and never overwrites a key.
      while (keys.has(issued.stored.keyId)) issued = newApiKey(input, new Date())
      return { entry: { put: issued.stored }, result: { key: issued.key, record: publicRecord(issued.stored) } }
    })
  }

  verify (key: string): ApiKeyRecord | null {
    const now = Date.now()
    const record = this.#file.table.verify(key, now)
    if (record !== null) this.#used.set(record.keyId, now)
    return record
  }

  revoke (keyId: string): Promise<boolean> {
    return this.#file.change((keys) => {
      const stored = keys.get(keyId)
      if (stored === undefined) return { result: false }
      return { entry: stored.enabled ? { put: { ...stored, enabled: false } } : undefined, result: true }
    })
  }

  delete (keyId: string): Promise<boolean> {
    return this.#file.change((keys) => keys.has(keyId) ? { entry: { delete: keyId }, result: true } : { result: false })
  }

  async list (): Promise<ApiKeyRecord[]> {
    await this.#reload()
    return [...this.#file.table.values()].map(publicRecord)
  }

  /** Stops watching and writes pending last-use times. */
  async close (): Promise<void> {
    for (const timer of this.#timers.splice(0)) clearInterval(timer)
    await this.#flushLastUsed()
  }
}
