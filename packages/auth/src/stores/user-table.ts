import { Type } from '@sinclair/typebox'
import { hasControlCharacter, invalidTag, invalidTagMessage, parseTags, sha256 } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_STORE_INPUT } from '../errors.js'
import { DEFAULT_SCRYPT, hashPassword, parsePasswordHash, verifyAgainstDummy, verifyPassword, type ScryptParams } from '../password.js'
import { recordCheck } from './record-check.js'
import type { RecordKind } from './record-kind.js'
import type { NewUser, UserRecord, UserStanding, VerifiedUser } from '../user-store.js'

/** A user as stored. */
export interface StoredUser {
  identity: string
  tags: string[]
  enabled: boolean
  createdAt: string
  updatedAt: string
  passwordHash: string
}

const isoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T' })
const storedUserSchema = Type.Object({
  identity: Type.String({ minLength: 1 }),
  tags: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  createdAt: isoDate,
  updatedAt: isoDate,
  passwordHash: Type.String({ pattern: '^scrypt\\$' })
}, { additionalProperties: false })

/** How the user file stores users: by identity, each checked alone. */
export const userKind: RecordKind<StoredUser, Map<string, StoredUser>> = Object.freeze({
  name: 'users',
  noun: 'user',
  idOf: (user: StoredUser) => user.identity,
  invalid: recordCheck(storedUserSchema),
  invalidId: (id: unknown) => typeof id === 'string' && id !== '' ? undefined : 'expected an identity',
  newTable: () => new Map<string, StoredUser>()
})

const MAX_PASSWORD = 1024

export function publicUser ({ passwordHash: _hidden, ...user }: StoredUser): UserRecord {
  return Object.freeze({ ...user, tags: Object.freeze([...user.tags]) })
}

// A stored user is never changed in place once read (stores replace it), so
// its standing can be kept with it.
const standings = new WeakMap<StoredUser, UserStanding>()

/**
 * The user's standing: tags, and the credential stamp, a digest of the
 * password hash (whose salt is new at every setPassword). The stamp reveals
 * nothing about the password: the salt is not in it.
 * D-SESSION-11: the credential stamp.
 */
export function standingOf (stored: StoredUser): UserStanding {
  let standing = standings.get(stored)
  if (standing === undefined) {
    const stamp = sha256(stored.passwordHash).slice(0, 22)
    standings.set(stored, standing = Object.freeze({ tags: Object.freeze([...stored.tags]), stamp }))
  }
  return standing
}

/** Checks an identity: 1–200 characters, no control characters, no colon (it must work as a Basic user name too). */
export function checkIdentity (identity: unknown): string {
  if (typeof identity !== 'string' || identity === '' || identity.length > 200 || hasControlCharacter(identity) || identity.includes(':')) {
    throw new GATEHOUSE_AUTH_STORE_INPUT('identity must be 1–200 characters without control characters or ":"')
  }
  return identity
}

/**
 * The password policy of every user store (and of `gatehouse users hash`):
 * 1–1024 characters. Returns the password; throws `GATEHOUSE_AUTH_STORE_INPUT`.
 * D-PASSWORD-03: the stores keep this check; the password policy is applied
 * where Gatehouse sets a person's password.
 */
export function checkPassword (password: unknown): string {
  if (typeof password !== 'string' || password === '' || password.length > MAX_PASSWORD) {
    throw new GATEHOUSE_AUTH_STORE_INPUT(`password must be 1–${MAX_PASSWORD} characters`)
  }
  return password
}

/**
 * Checks tags given to a store: a comma-separated string or a list, each tag in the rule grammar's alphabet.
 * D-RULES-06.
 */
export function checkTags (tags: unknown): string[] {
  let parsed: string[]
  try {
    parsed = parseTags(tags as string | string[] | undefined)
  } catch {
    throw new GATEHOUSE_AUTH_STORE_INPUT('tags must be a comma-separated string or a list of strings')
  }
  const bad = invalidTag(parsed)
  if (bad !== undefined) throw new GATEHOUSE_AUTH_STORE_INPUT(invalidTagMessage(bad))
  return parsed
}

/** Builds a stored user (the password hashed). */
export async function newUser (identity: string, user: NewUser, params: ScryptParams): Promise<StoredUser> {
  checkIdentity(identity)
  const tags = checkTags(user?.tags)
  const passwordHash = await hashPassword(checkPassword(user?.password), params)
  const now = new Date().toISOString()
  return { identity, tags, enabled: true, createdAt: now, updatedAt: now, passwordHash }
}

/**
 * Verifies a password against a stored user, spending the same work
 * whether the user exists, is disabled or not.
 */
export async function verifyStored (stored: StoredUser | undefined, password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<VerifiedUser | null> {
  if (typeof password !== 'string' || password.length > MAX_PASSWORD) return null
  if (stored === undefined) return verifyAgainstDummy(password, params).then(() => null)
  let ok: boolean
  try {
    ok = await verifyPassword(password, parsePasswordHash(stored.passwordHash))
  } catch {
    return null
  }
  return ok && stored.enabled ? Object.freeze({ ...publicUser(stored), stamp: standingOf(stored).stamp }) : null
}
