import { createHash } from 'node:crypto'
import { GATEHOUSE_AUTH_STORE_INPUT } from '../errors.js'
import { hashPasswordWithSalt, parsePasswordHash, type ScryptParams } from '../password.js'
import { checkIdentity, checkPassword, checkTags, type StoredUser } from './user-table.js'

/** A user as a server's configuration names it: a password or its scrypt hash (exactly one), and tags. */
export type ConfiguredUser =
  | { password: string, passwordHash?: undefined, tags?: string | readonly string[] }
  /** `passwordHash`: `scrypt$N,r,p$salt$hash`, as `gatehouse users hash` prints it. */
  | { passwordHash: string, password?: undefined, tags?: string | readonly string[] }

// Never changes: every instance (of every version) must derive the same salt.
const SALT_CONTEXT = 'gatehouse configured user password salt v1\0'

/**
 * The salt of a configured user's password: the same for the same identity
 * on every instance, so the hash (and the credential stamp derived from it)
 * is too. D-AUTH-70: deterministic, per identity, behind a fixed context.
 */
export function configuredSalt (identity: string): Buffer {
  return createHash('sha256').update(SALT_CONTEXT + identity).digest().subarray(0, 16)
}

/**
 * The password hash of a configured user: the one given (`passwordHash`,
 * checked), or `password` hashed with {@link configuredSalt}. The same
 * entry gives the same hash on every instance; another password, another hash.
 */
export async function configuredPasswordHash (identity: string, user: ConfiguredUser, params: ScryptParams): Promise<string> {
  const hasPassword = user?.password !== undefined
  const hasHash = user?.passwordHash !== undefined
  if (hasPassword === hasHash) throw new GATEHOUSE_AUTH_STORE_INPUT('give exactly one of password or passwordHash')
  if (hasPassword) return await hashPasswordWithSalt(checkPassword(user.password), params, configuredSalt(identity))
  try {
    parsePasswordHash(user.passwordHash!)
  } catch (err) {
    throw new GATEHOUSE_AUTH_STORE_INPUT(`passwordHash: ${(err as Error).message} (make one with \`gatehouse users hash\`)`)
  }
  return user.passwordHash!
}

/** A stored user from its configured entry, enabled. */
export async function configuredUser (identity: string, user: ConfiguredUser, params: ScryptParams): Promise<StoredUser> {
  checkIdentity(identity)
  const tags = checkTags(user?.tags)
  const passwordHash = await configuredPasswordHash(identity, user, params)
  const now = new Date().toISOString()
  return { identity, tags, enabled: true, createdAt: now, updatedAt: now, passwordHash }
}
