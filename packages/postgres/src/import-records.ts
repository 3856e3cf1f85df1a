import {
  checkIdentity, checkTags, GATEHOUSE_AUTH_STORE_INPUT, parsePasswordHash, type StoredApiKey, type StoredUser
} from '@fastify-gatehouse/auth'
import { hasControlCharacter, isPlainObject } from '@fastify-gatehouse/core'
import { isKeyId, wellFormed } from './stored-names.js'

/** What an import did: rows written, and records whose identity or key id was already there (left as they were). */
export interface ImportCounts {
  readonly added: number
  readonly existing: number
}

/** Rows per statement (and so per transaction) of an import. */
export const IMPORT_BATCH = 1000

const SECRET_HASH = /^sha256\$[A-Za-z0-9_-]{43}$/
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T/

function fail (where: string, problem: string): never {
  throw new GATEHOUSE_AUTH_STORE_INPUT(`${where}: ${problem}`)
}

function fields (record: unknown, where: string, expected: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(record)) fail(where, 'expected an object')
  for (const key of Object.keys(record)) if (!expected.includes(key)) fail(where, `unknown field "${key}"`)
  return record
}

function date (value: unknown, where: string, name: string): string {
  if (typeof value !== 'string' || !ISO_DATE.test(value) || Number.isNaN(Date.parse(value))) fail(where, `${name} must be an ISO 8601 date`)
  return new Date(value).toISOString()
}

function reword<T> (where: string, check: () => T): T {
  try {
    return check()
  } catch (err) {
    return fail(where, (err as Error).message)
  }
}

function unique<T> (records: readonly T[], name: (record: T) => string, kind: string): void {
  const seen = new Set<string>()
  records.forEach((record, i) => {
    if (seen.has(name(record))) fail(`${kind}[${i}]`, `${name(record)} appears twice`)
    seen.add(name(record))
  })
}

function list (records: unknown, kind: string): readonly unknown[] {
  if (!Array.isArray(records)) throw new GATEHOUSE_AUTH_STORE_INPUT(`${kind}: expected a list of records`)
  return records
}

const USER_FIELDS = ['identity', 'tags', 'enabled', 'createdAt', 'updatedAt', 'passwordHash']

/**
 * Checks users to import, as stored (with their scrypt hashes); throws
 * `GATEHOUSE_AUTH_STORE_INPUT` naming `users[i]` and the problem, before
 * anything is written.
 */
export function checkImportedUsers (records: unknown): StoredUser[] {
  const checked = list(records, 'users').map((record, i): StoredUser => {
    const where = `users[${i}]`
    const user = fields(record, where, USER_FIELDS)
    const identity = reword(where, () => checkIdentity(user.identity))
    if (!wellFormed(identity)) fail(where, 'identity must be well-formed Unicode (no lone surrogate)')
    const named = `${where} (${identity})`
    if (typeof user.enabled !== 'boolean') fail(named, 'enabled must be true or false')
    if (typeof user.passwordHash !== 'string') fail(named, 'passwordHash must be a scrypt hash')
    reword(named, () => parsePasswordHash(user.passwordHash as string))
    return {
      identity,
      tags: reword(named, () => checkTags(user.tags ?? [])),
      enabled: user.enabled,
      createdAt: date(user.createdAt, named, 'createdAt'),
      updatedAt: date(user.updatedAt, named, 'updatedAt'),
      passwordHash: user.passwordHash
    }
  })
  unique(checked, (user) => user.identity, 'users')
  return checked
}

const KEY_FIELDS = ['keyId', 'label', 'tags', 'enabled', 'expiresAt', 'createdAt', 'lastUsedAt', 'secretHash']

/**
 * Checks API keys to import, as stored (with the SHA-256 of their
 * secrets); throws `GATEHOUSE_AUTH_STORE_INPUT` naming `keys[i]` and the
 * problem, before anything is written.
 */
export function checkImportedKeys (records: unknown): StoredApiKey[] {
  const checked = list(records, 'keys').map((record, i): StoredApiKey => {
    const where = `keys[${i}]`
    const key = fields(record, where, KEY_FIELDS)
    if (!isKeyId(key.keyId)) fail(where, 'keyId must be 16 lower-case hex digits')
    const named = `${where} (${key.keyId})`
    if (typeof key.label !== 'string' || key.label === '' || key.label.length > 200 || hasControlCharacter(key.label) || !wellFormed(key.label)) {
      fail(named, 'label must be 1–200 characters without control characters or lone surrogates')
    }
    if (typeof key.enabled !== 'boolean') fail(named, 'enabled must be true or false')
    if (typeof key.secretHash !== 'string' || !SECRET_HASH.test(key.secretHash)) fail(named, 'secretHash must be sha256$<43 base64url characters>')
    return {
      keyId: key.keyId,
      label: key.label,
      tags: reword(named, () => checkTags(key.tags ?? [])),
      enabled: key.enabled,
      expiresAt: key.expiresAt == null ? null : date(key.expiresAt, named, 'expiresAt'),
      createdAt: date(key.createdAt, named, 'createdAt'),
      lastUsedAt: key.lastUsedAt == null ? null : date(key.lastUsedAt, named, 'lastUsedAt'),
      secretHash: key.secretHash
    }
  })
  unique(checked, (key) => key.keyId, 'keys')
  return checked
}

/**
 * Writes `rows` in batches of {@link IMPORT_BATCH}, one statement each (so
 * each batch is one transaction: an interrupted import keeps the batches
 * done, and running it again adds the rest). `insert` writes one batch and
 * resolves with the rows it added.
 * D-POSTGRES-ID1.
 */
export async function importInBatches<T> (rows: readonly T[], insert: (batch: readonly T[]) => Promise<number>): Promise<ImportCounts> {
  let added = 0
  for (let at = 0; at < rows.length; at += IMPORT_BATCH) added += await insert(rows.slice(at, at + IMPORT_BATCH))
  return Object.freeze({ added, existing: rows.length - added })
}
