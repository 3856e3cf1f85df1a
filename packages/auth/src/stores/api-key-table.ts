import { Type } from '@sinclair/typebox'
import { hasControlCharacter, sha256 } from '@fastify-gatehouse/core'
import { API_KEY_ID_PATTERN, generateApiKey, parseApiKey, type ApiKeyRecord, type IssueApiKey } from '../api-key.js'
import { constantTimeEqual } from '../digest.js'
import { GATEHOUSE_AUTH_STORE_INPUT } from '../errors.js'
import type { RecordKind, Table } from './record-kind.js'
import { recordCheck } from './record-check.js'
import { checkTags } from './user-table.js'

/** A key as stored: the public record plus the SHA-256 of its secret. */
export interface StoredApiKey {
  keyId: string
  label: string
  tags: string[]
  enabled: boolean
  expiresAt: string | null
  createdAt: string
  lastUsedAt: string | null
  /** `sha256$<base64url>` of the secret part. */
  secretHash: string
}

const isoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T' })
const storedApiKeySchema = Type.Object({
  keyId: Type.String({ pattern: API_KEY_ID_PATTERN }),
  label: Type.String({ minLength: 1 }),
  tags: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  expiresAt: Type.Union([isoDate, Type.Null()]),
  createdAt: isoDate,
  lastUsedAt: Type.Union([isoDate, Type.Null()]),
  secretHash: Type.String({ pattern: '^sha256\\$[A-Za-z0-9_-]{43}$' })
}, { additionalProperties: false })

const KEY_ID = new RegExp(API_KEY_ID_PATTERN)

const SHA256_PREFIX = 'sha256$'

/** The public view of a stored key: no hash. */
export function publicRecord (stored: StoredApiKey): ApiKeyRecord {
  const { secretHash: _hidden, ...record } = stored
  return Object.freeze({ ...record, tags: Object.freeze([...record.tags]) })
}

/** Validates issue input and builds the stored record and the full key (shown once). */
export function newApiKey (input: IssueApiKey, now: Date): { key: string, stored: StoredApiKey } {
  const label = typeof input?.label === 'string' ? input.label.trim() : ''
  if (label === '' || label.length > 200 || hasControlCharacter(label)) {
    throw new GATEHOUSE_AUTH_STORE_INPUT('label must be 1–200 characters without control characters')
  }
  const tags = checkTags(input.tags)
  const expiresAt = input.expiresAt ?? null
  // Before year 10000 (UTC): what PostgreSQL's timestamptz holds, so every store agrees and a key can move between them (D-AUTH-28).
  if (expiresAt !== null && (!(expiresAt instanceof Date) || Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime() || expiresAt.getUTCFullYear() > 9999)) {
    throw new GATEHOUSE_AUTH_STORE_INPUT('expiresAt must be a date in the future, before year 10000 (UTC)')
  }
  const { key, keyId, secret } = generateApiKey()
  return {
    key,
    stored: {
      keyId,
      label,
      tags,
      enabled: true,
      expiresAt: expiresAt === null ? null : expiresAt.toISOString(),
      createdAt: now.toISOString(),
      lastUsedAt: null,
      secretHash: `${SHA256_PREFIX}${sha256(secret)}`
    }
  }
}

/** What verifying a key needs, worked out at its first verification. */
interface Ready {
  readonly enabled: boolean
  readonly digest: string
  readonly record: ApiKeyRecord
  readonly expiresAtMs: number
}

/**
 * Stored keys by id, verified in O(1); adding, replacing or removing a key
 * is O(1) too (D-AUTH-27). The memory store's keys, and what the key file
 * folds into. The public record and the digest of a key are worked out at
 * its first verification and kept until it changes: loading 100 000 keys
 * allocates only what was read.
 */
export class ApiKeyTable implements Table<StoredApiKey> {
  readonly #keys = new Map<string, StoredApiKey>()
  readonly #ready = new Map<string, Ready>()

  get size (): number {
    return this.#keys.size
  }

  get (keyId: string): StoredApiKey | undefined {
    return this.#keys.get(keyId)
  }

  has (keyId: string): boolean {
    return this.#keys.has(keyId)
  }

  /** Adds `stored`, or replaces the key of the same id. Records are replaced, never changed in place. */
  set (keyId: string, stored: StoredApiKey): this {
    this.#keys.set(keyId, stored)
    this.#ready.delete(keyId)
    return this
  }

  delete (keyId: string): boolean {
    this.#ready.delete(keyId)
    return this.#keys.delete(keyId)
  }

  values (): IterableIterator<StoredApiKey> {
    return this.#keys.values()
  }

  /** The record for a full key when it matches, is enabled and has not expired at `now` (ms). */
  verify (key: string, now: number): ApiKeyRecord | null {
    const parts = parseApiKey(key)
    if (parts === null) return null
    const entry = this.#readyFor(parts.keyId)
    // Hash the secret even for unknown ids, so the answer takes the same time.
    const presented = sha256(parts.secret)
    // D-AUTH-08: digests compared as strings, branch-free.
    if (entry === undefined || !constantTimeEqual(presented, entry.digest)) return null
    if (!entry.enabled || entry.expiresAtMs <= now) return null
    return entry.record
  }

  #readyFor (keyId: string): Ready | undefined {
    let ready = this.#ready.get(keyId)
    if (ready !== undefined) return ready
    const stored = this.#keys.get(keyId)
    if (stored === undefined) return undefined
    ready = {
      enabled: stored.enabled,
      digest: stored.secretHash.slice(SHA256_PREFIX.length),
      record: publicRecord(stored),
      expiresAtMs: stored.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(stored.expiresAt)
    }
    this.#ready.set(keyId, ready)
    return ready
  }
}

/**
 * `stored` with its last use at `at` (ISO 8601), and how many bytes longer
 * its line gets (`null` becomes a quoted time); undefined when it was used
 * as late already. O(1): no serialising to measure.
 */
export function withLastUse (stored: StoredApiKey, at: string): { record: StoredApiKey, grows: number } | undefined {
  if (stored.lastUsedAt !== null && stored.lastUsedAt >= at) return undefined
  const before = stored.lastUsedAt === null ? 4 : Buffer.byteLength(JSON.stringify(stored.lastUsedAt))
  return { record: { ...stored, lastUsedAt: at }, grows: Buffer.byteLength(JSON.stringify(at)) - before }
}

/** How the key file stores keys: by key id, each checked alone, with `used` lines for last uses. */
export const apiKeyKind: RecordKind<StoredApiKey, ApiKeyTable> = Object.freeze({
  name: 'keys',
  noun: 'key',
  idOf: (stored: StoredApiKey) => stored.keyId,
  invalid: recordCheck(storedApiKeySchema),
  invalidId: (id: unknown) => typeof id === 'string' && KEY_ID.test(id) ? undefined : 'expected a key id (16 hex digits)',
  newTable: () => new ApiKeyTable(),
  withLastUse
})
