import {
  constantTimeEqual, GATEHOUSE_AUTH_STORE_INPUT, newApiKey, parseApiKey, publicRecord, type ApiKeyRecord, type ApiKeyStore, type IssueApiKey, type StoredApiKey
} from '@fastify-gatehouse/auth'
import { sha256 } from '@fastify-gatehouse/core'
import { GATEHOUSE_POSTGRES_INSERT_REFUSED } from './errors.js'
import type { PostgresCacheOptions } from './cache-options.js'
import { checkImportedKeys, insertAll, keyTable, type ImportCounts } from './import-records.js'
import { LastUsed } from './last-used.js'
import { ListeningStore } from './listening-store.js'
import { wholeOption } from './option-ranges.js'
import type { PostgresConnection, PostgresStoreOptions } from './options.js'
import type { ConnectOptions } from './postgres-store.js'
import { apiKeyStatements, type ApiKeyStatements } from './sql/api-key-statements.js'
import { run } from './statement.js'
import { isKeyId, wellFormed } from './stored-names.js'

/** Options of {@link PostgresApiKeyStore.connect} besides the connection; every key is optional. */
export interface PostgresApiKeyStoreOptions extends PostgresStoreOptions, ConnectOptions, PostgresCacheOptions {
  /** ms between writes of last-use times (one statement for every key used meanwhile); `close()` writes the rest. Default: 60 000. */
  lastUsedFlushInterval?: number
}

interface KeyRow {
  key_id: string
  label: string
  tags: string[]
  enabled: boolean
  expires_at: Date | null
  created_at: Date
  last_used_at: Date | null
  secret_hash: string
}

/** What verify needs of a key: its digest, whether it works, and the record to answer with. */
interface KeyEntry {
  readonly digest: string
  readonly enabled: boolean
  readonly expiresAtMs: number
  readonly record: ApiKeyRecord
}

const SHA256_PREFIX = 'sha256$'
// Compared against when the key id is unknown, so that answer takes the
// time a wrong secret does (a digest is 43 base64url characters).
const NO_DIGEST = '-'.repeat(43)

const iso = (date: Date | null): string | null => date === null ? null : date.toISOString()

function storedKey (row: Omit<KeyRow, 'secret_hash'>, secretHash = ''): StoredApiKey {
  return {
    keyId: row.key_id,
    label: row.label,
    tags: row.tags,
    enabled: row.enabled,
    expiresAt: iso(row.expires_at),
    createdAt: row.created_at.toISOString(),
    lastUsedAt: iso(row.last_used_at),
    secretHash
  }
}

function entryOf (row: KeyRow): KeyEntry {
  return Object.freeze({
    digest: row.secret_hash.slice(SHA256_PREFIX.length),
    enabled: row.enabled,
    expiresAtMs: row.expires_at === null ? Number.POSITIVE_INFINITY : row.expires_at.getTime(),
    record: publicRecord(storedKey(row, row.secret_hash))
  })
}

/**
 * API keys in PostgreSQL (table `<schema>.<prefix>api_keys`), secrets as
 * their SHA-256 only. `verify` answers from a bounded cache keyed by key id
 * (synchronously on a hit), kept right by change notifications; unknown
 * ids are cached apart, so a flood of made-up ids never evicts a real key.
 * Last-use times are kept in memory and written in one statement every
 * `lastUsedFlushInterval`, and by `close()`.
 * D-POSTGRES-13 … D-POSTGRES-18.
 */
export class PostgresApiKeyStore extends ListeningStore<KeyEntry> implements ApiKeyStore {
  readonly #sql: ApiKeyStatements
  readonly #lastUsed: LastUsed
  readonly #load = async (keyId: string): Promise<KeyEntry | null> => {
    const { rows } = await run<KeyRow>(this.pool, this.#sql.byId, [keyId])
    return rows[0] === undefined ? null : entryOf(rows[0])
  }

  private constructor (options: PostgresConnection & PostgresApiKeyStoreOptions) {
    super(options, 'PostgresApiKeyStore', 'key', ['lastUsedFlushInterval'])
    this.#sql = apiKeyStatements(this.names)
    const interval = wholeOption('PostgresApiKeyStore', 'lastUsedFlushInterval', options.lastUsedFlushInterval, 60_000)
    this.#lastUsed = new LastUsed(interval, (ids, ats) => run(this.pool, this.#sql.touch, [ids, ats]))
  }

  /**
   * Connects, checks the schema (migrating it with `migrate: true`) and
   * starts the change listener and the last-use writer. Rejects with a boot
   * error: `GATEHOUSE_POSTGRES_INVALID_OPTIONS`, `…_CONNECT`,
   * `…_SCHEMA_BEHIND` or `…_SCHEMA_AHEAD`.
   */
  static async connect (options: PostgresConnection & PostgresApiKeyStoreOptions): Promise<PostgresApiKeyStore> {
    const store = new PostgresApiKeyStore(options)
    await store.open(options)
    store.#lastUsed.start()
    return store
  }

  async issue (input: IssueApiKey): Promise<{ key: string, record: ApiKeyRecord }> {
    if (typeof input?.label === 'string' && !wellFormed(input.label)) throw new GATEHOUSE_AUTH_STORE_INPUT('label must be well-formed Unicode (no lone surrogate)')
    // A random 64-bit id that exists already is drawn again; three misses
    // in a row mean the table refuses inserts (a rule, a trigger), not luck.
    for (let attempt = 1; ; attempt++) {
      const { key, stored } = newApiKey(input, new Date())
      const { rowCount } = await this.changing(stored.keyId, () => run(this.pool, this.#sql.insert, [
        stored.keyId, stored.label, stored.tags, stored.enabled, stored.expiresAt, stored.createdAt, stored.lastUsedAt, stored.secretHash
      ]))
      if (rowCount !== 0) return { key, record: publicRecord(stored) }
      if (attempt === 3) throw new GATEHOUSE_POSTGRES_INSERT_REFUSED(this.names.table('api_keys'))
    }
  }

  /**
   * The record for a full key when it is known, enabled and not expired;
   * otherwise null. Synchronous when the key id's entry is cached and
   * trusted; otherwise one query by primary key (shared by concurrent
   * callers). The secret is hashed and compared in constant time either way.
   */
  verify (key: string): ApiKeyRecord | null | Promise<ApiKeyRecord | null> {
    const parts = typeof key === 'string' ? parseApiKey(key) : null
    if (parts === null) return null
    const presented = sha256(parts.secret)
    const cached = this.cache.peek(parts.keyId)
    if (cached !== undefined) return this.#check(cached, presented)
    return this.cache.get(parts.keyId, this.#load).then((entry) => this.#check(entry, presented))
  }

  #check (entry: KeyEntry | null, presented: string): ApiKeyRecord | null {
    // D-AUTH-08: digests compared branch-free, an unknown id included.
    const matches = constantTimeEqual(presented, entry === null ? NO_DIGEST : entry.digest)
    if (entry === null || !matches || !entry.enabled) return null
    const now = Date.now()
    if (entry.expiresAtMs <= now) return null
    this.#lastUsed.record(entry.record.keyId, now)
    return entry.record
  }

  async revoke (keyId: string): Promise<boolean> {
    if (!isKeyId(keyId)) return false
    const { rowCount } = await this.changing(keyId, () => run(this.pool, this.#sql.revoke, [keyId]))
    return rowCount !== 0
  }

  async delete (keyId: string): Promise<boolean> {
    if (!isKeyId(keyId)) return false
    const { rowCount } = await this.changing(keyId, () => run(this.pool, this.#sql.delete, [keyId]))
    this.#lastUsed.forget(keyId)
    return rowCount !== 0
  }

  /** Every key, oldest first; last-use times not yet written are shown as they are in memory. */
  async list (): Promise<ApiKeyRecord[]> {
    const { rows } = await run<Omit<KeyRow, 'secret_hash'>>(this.pool, this.#sql.list, [])
    return rows.map((row) => {
      const key = storedKey(row)
      const used = this.#lastUsed.pending(key.keyId)
      if (used !== undefined && (key.lastUsedAt === null || Date.parse(key.lastUsedAt) < used)) key.lastUsedAt = new Date(used).toISOString()
      return publicRecord(key)
    })
  }

  /** Writes the last-use times kept in memory now (the timer does it every `lastUsedFlushInterval`). */
  async flushLastUsed (): Promise<void> {
    await this.#lastUsed.flush()
  }

  /**
   * Adds keys as stored elsewhere, secret digests included: every record is
   * checked first (`GATEHOUSE_AUTH_STORE_INPUT` naming `keys[i]`), then all
   * are written in one transaction (a value PostgreSQL refuses is named the
   * same way, and nothing is written); key ids already here are left as
   * they are, so running it again is harmless. `importStore` does users and
   * keys together.
   */
  async importKeys (records: readonly StoredApiKey[]): Promise<ImportCounts> {
    const keys = checkImportedKeys(records)
    try {
      return await this.transaction(async (client) => await insertAll(client, keyTable(this.#sql.import, keys)))
    } finally {
      for (const k of keys) this.cache.invalidate(k.keyId)
    }
  }

  /** Writes pending last-use times (a database that is away loses them), stops listening, ends a pool the store opened. */
  override async close (): Promise<void> {
    await this.#lastUsed.stop()
    await super.close()
  }
}
