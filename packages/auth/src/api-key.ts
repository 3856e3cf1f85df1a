import { randomBytes } from 'node:crypto'
import type { MaybePromise } from '@fastify-gatehouse/core'

/** A stored API key, as listed: never the secret, never its hash. */
export interface ApiKeyRecord {
  /** 16 hex characters, the public part of the key. */
  readonly keyId: string
  /** The identity of callers using the key. */
  readonly label: string
  readonly tags: readonly string[]
  readonly enabled: boolean
  /** ISO 8601, or null for a key that does not expire. */
  readonly expiresAt: string | null
  readonly createdAt: string
  readonly lastUsedAt: string | null
}

/** What issuing a key takes. */
export interface IssueApiKey {
  label: string
  tags?: string | readonly string[]
  /** When the key stops working; default: never. */
  expiresAt?: Date | null
}

/**
 * Where API keys live. Secrets are stored only as their SHA-256; `issue`
 * returns the full key once.
 */
export interface ApiKeyStore {
  issue: (input: IssueApiKey) => Promise<{ key: string, record: ApiKeyRecord }>
  /** The record for a full `gak_` key when it is known, enabled and not expired; otherwise null. */
  verify: (key: string) => MaybePromise<ApiKeyRecord | null>
  /** Disables the key; the record stays. False when unknown. */
  revoke: (keyId: string) => Promise<boolean>
  /** Removes the record. False when unknown. */
  delete: (keyId: string) => Promise<boolean>
  list: () => Promise<ApiKeyRecord[]>
}

/** `gak_<16 hex>_<secret>`; the secret is base64url. */
/** An API key's id (the part after `gak_`) as a JSON-schema `pattern`: 16 lower-case hex digits. */
export const API_KEY_ID_PATTERN = '^[0-9a-f]{16}$'

export const API_KEY = /^gak_([0-9a-f]{16})_([A-Za-z0-9_-]{20,128})$/

/** Splits a full key into id and secret, or null when it is not of the form. */
export function parseApiKey (key: string): { keyId: string, secret: string } | null {
  const match = API_KEY.exec(key)
  return match === null ? null : { keyId: match[1]!, secret: match[2]! }
}

/** A new random key: 8 random bytes of id, 32 of secret. */
export function generateApiKey (): { key: string, keyId: string, secret: string } {
  const keyId = randomBytes(8).toString('hex')
  const secret = randomBytes(32).toString('base64url')
  return { key: `gak_${keyId}_${secret}`, keyId, secret }
}
