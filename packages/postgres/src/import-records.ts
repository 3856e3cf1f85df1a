import type pg from 'pg'
import {
  checkIdentity, checkTags, GATEHOUSE_AUTH_STORE_INPUT, parsePasswordHash, type StoredApiKey, type StoredUser
} from '@fastify-gatehouse/auth'
import { hasControlCharacter, isPlainObject } from '@fastify-gatehouse/core'
import { isDataException, refusedValue } from './data-exception.js'
import { run, type Statement } from './statement.js'
import { isKeyId, wellFormed } from './stored-names.js'

/** What an import did: rows written, and records whose identity or key id was already there (left as they were). */
export interface ImportCounts {
  readonly added: number
  readonly existing: number
}

/** Rows per statement of an import (all of an import's statements are one transaction). */
export const IMPORT_BATCH = 1000

const SECRET_HASH = /^sha256\$[A-Za-z0-9_-]{43}$/
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})T/
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function fail (where: string, problem: string): never {
  throw new GATEHOUSE_AUTH_STORE_INPUT(`${where}: ${problem}`)
}

function fields (record: unknown, where: string, expected: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(record)) fail(where, 'expected an object')
  for (const key of Object.keys(record)) if (!expected.includes(key)) fail(where, `unknown field "${key}"`)
  return record
}

// A day that exists as written: Date.parse rolls 2026-02-30 over to March 2.
function calendarDay (year: number, month: number, day: number): boolean {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && !leap ? 28 : MONTH_DAYS[month - 1]!)
}

// The date as PostgreSQL's timestamptz takes it: years 1 to 9999 in UTC (it
// refuses year 0 and reads a six-digit year as an offset), so an offset that
// moves 0001-01-01 or 9999-12-31 across the edge is refused here, not mid-import.
// D-POSTGRES-21.
function date (value: unknown, where: string, name: string): string {
  const parts = typeof value === 'string' ? ISO_DATE.exec(value) : null
  const ms = parts === null ? NaN : Date.parse(value as string)
  if (parts === null || Number.isNaN(ms) || !calendarDay(Number(parts[1]), Number(parts[2]), Number(parts[3]))) fail(where, `${name} must be an ISO 8601 date`)
  const year = new Date(ms).getUTCFullYear()
  if (year < 1 || year > 9999) fail(where, `${name} must be a date from year 1 to 9999 (UTC)`)
  return new Date(ms).toISOString()
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

/** One table of an import: its rows, checked, and how to name one in an error. */
export interface ImportTable<T> {
  /** `users` or `keys`: records are named `<kind>[i] (<name>)`, `i` their place in the list given. */
  readonly kind: string
  /** The `import` statement of the table: $1 a JSON array of rows. */
  readonly statement: Statement
  readonly records: readonly T[]
  readonly name: (record: T) => string
  readonly row: (record: T) => Record<string, unknown>
}

/** The users of an import as rows of `<prefix>users`. */
export function userTable (statement: Statement, users: readonly StoredUser[]): ImportTable<StoredUser> {
  return {
    kind: 'users',
    statement,
    records: users,
    name: (u) => u.identity,
    row: (u) => ({ identity: u.identity, tags: u.tags, enabled: u.enabled, password_hash: u.passwordHash, created_at: u.createdAt, updated_at: u.updatedAt })
  }
}

/** The keys of an import as rows of `<prefix>api_keys`. */
export function keyTable (statement: Statement, keys: readonly StoredApiKey[]): ImportTable<StoredApiKey> {
  return {
    kind: 'keys',
    statement,
    records: keys,
    name: (k) => k.keyId,
    row: (k) => ({
      key_id: k.keyId, label: k.label, tags: k.tags, enabled: k.enabled, expires_at: k.expiresAt, created_at: k.createdAt, last_used_at: k.lastUsedAt, secret_hash: k.secretHash
    })
  }
}

const insert = async <T>(client: pg.PoolClient, table: ImportTable<T>, places: readonly number[]): Promise<number> =>
  (await run(client, table.statement, [JSON.stringify(places.map((i) => table.row(table.records[i]!)))])).rowCount ?? 0

/**
 * Writes the rows of `table` on `client`, which is in a transaction (the
 * caller's: commit and rollback are its own), {@link IMPORT_BATCH} rows
 * per statement. Rows go in order of their names, so two imports that
 * share names take their row locks in the same order and wait for each
 * other rather than deadlock. A data exception (SQLSTATE class 22: a value
 * the checks let through and PostgreSQL refuses) is found again row by row
 * from a savepoint and rejects as `GATEHOUSE_AUTH_STORE_INPUT` naming the
 * record, never quoting PostgreSQL's message.
 * D-POSTGRES-13, D-POSTGRES-20, D-POSTGRES-22.
 */
export async function insertAll<T> (client: pg.PoolClient, table: ImportTable<T>): Promise<ImportCounts> {
  const names = table.records.map(table.name)
  const order = names.map((_, i) => i).sort((a, b) => names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0)
  let added = 0
  for (let at = 0; at < order.length; at += IMPORT_BATCH) {
    const batch = order.slice(at, at + IMPORT_BATCH)
    await client.query('savepoint gatehouse_import')
    try {
      added += await insert(client, table, batch)
    } catch (err) {
      if (!isDataException(err)) throw err
      await client.query('rollback to savepoint gatehouse_import')
      for (const i of batch) {
        try {
          await insert(client, table, [i])
        } catch (alone) {
          throw isDataException(alone) ? refusedValue(`${table.kind}[${i}] (${names[i]!})`, alone) : alone
        }
      }
      // Refused together, taken one by one (a deferred check would do it): named by the rows it held.
      throw refusedValue(`${table.kind}: one of ${batch.length} records`, err)
    }
    await client.query('release savepoint gatehouse_import')
  }
  return Object.freeze({ added, existing: table.records.length - added })
}
