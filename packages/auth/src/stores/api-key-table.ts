import { Type } from '@sinclair/typebox'
import { hasControlCharacter, sha256 } from '@fastify-gatehouse/core'
import { API_KEY_ID_PATTERN, generateApiKey, parseApiKey, type ApiKeyRecord, type IssueApiKey } from '../api-key.js'
import { constantTimeEqual } from '../digest.js'
import { GATEHOUSE_AUTH_STORE_INPUT } from '../errors.js'
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

/** The file format of the key store. */
export interface ApiKeyDocument {
  version: 1
  keys: StoredApiKey[]
}

const isoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T' })
export const apiKeyDocumentSchema = Type.Object({
  version: Type.Literal(1),
  keys: Type.Array(Type.Object({
    keyId: Type.String({ pattern: API_KEY_ID_PATTERN }),
    label: Type.String({ minLength: 1 }),
    tags: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    expiresAt: Type.Union([isoDate, Type.Null()]),
    createdAt: isoDate,
    lastUsedAt: Type.Union([isoDate, Type.Null()]),
    secretHash: Type.String({ pattern: '^sha256\\$[A-Za-z0-9_-]{43}$' })
  }, { additionalProperties: false }))
})

export const emptyApiKeyDocument = (): ApiKeyDocument => ({ version: 1, keys: [] })

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
  if (expiresAt !== null && (!(expiresAt instanceof Date) || Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime())) {
    throw new GATEHOUSE_AUTH_STORE_INPUT('expiresAt must be a date in the future')
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

/** An index over stored keys for O(1) verification. */
export class ApiKeyIndex {
  readonly #byId = new Map<string, { enabled: boolean, digest: string, record: ApiKeyRecord, expiresAtMs: number }>()

  constructor (keys: readonly StoredApiKey[]) {
    for (const stored of keys) {
      this.#byId.set(stored.keyId, {
        enabled: stored.enabled,
        digest: stored.secretHash.slice(SHA256_PREFIX.length),
        record: publicRecord(stored),
        expiresAtMs: stored.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(stored.expiresAt)
      })
    }
  }

  /** The record for a full key when it matches, is enabled and has not expired at `now` (ms). */
  verify (key: string, now: number): ApiKeyRecord | null {
    const parts = parseApiKey(key)
    if (parts === null) return null
    const entry = this.#byId.get(parts.keyId)
    // Hash the secret even for unknown ids, so the answer takes the same time.
    const presented = sha256(parts.secret)
    // D-AUTH-08: digests compared as strings, branch-free.
    if (entry === undefined || !constantTimeEqual(presented, entry.digest)) return null
    if (!entry.enabled || entry.expiresAtMs <= now) return null
    return entry.record
  }
}
