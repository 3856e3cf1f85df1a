import { Avatar, hasControlCharacter, sha256 } from '@fastify-gatehouse/core'
import { BoundedCache } from './bounded-cache.js'
import { configTags } from './config-tags.js'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'
import { SecretTable } from './secret-table.js'
import type { PasswordGuard } from './password-guard.js'
import { parsePasswordHash, verifyAgainstDummy, verifyPassword, type PasswordHash } from './password.js'

/** One basic user: a password or a scrypt hash. */
export interface BasicEntry {
  password?: string
  passwordHash?: string
  tags?: string | readonly string[]
}

/** Bounds of the cache of verified `passwordHash` credentials. */
export interface CacheOptions {
  /** Entries kept at most; 0 turns the cache off. */
  max: number
  /** Seconds a verified credential is served from the cache. */
  ttl: number
}

/** What a backend answers: the caller, or why the credentials were refused. */
export type Outcome = Avatar | { readonly refused: 'malformed' | 'invalid', readonly detail: string }

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
/** The refusal of a wrong password or an unknown user: one answer for both. */
export const INVALID = Object.freeze({ refused: 'invalid', detail: 'Invalid user name or password' } as const)

/** The user name and password of a base64 `user:password`, or why it is malformed. */
export function decodeBasic (credentials: string): { readonly user: string, readonly password: string } | Outcome {
  if (credentials.length % 4 !== 0 || !BASE64.test(credentials)) {
    return { refused: 'malformed', detail: 'Basic credentials must be base64' }
  }
  const decoded = Buffer.from(credentials, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon === -1 || hasControlCharacter(decoded)) {
    return { refused: 'malformed', detail: 'Basic credentials must be user:password without control characters' }
  }
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** What a Basic backend answers the core with. */
export interface BasicCredentialBackend {
  /** The caller for credentials already verified (served without I/O), or undefined. */
  known: (credentials: string, now: number) => Avatar | undefined
  /** Checks credentials that {@link known} did not know: the caller asks that first, and once (D-AUTH-82). */
  authenticate: (credentials: string, now: number, request: unknown) => Outcome | Promise<Outcome>
}

/**
 * RFC 7617 Basic. Plain passwords are found by the base64 credential
 * through a {@link SecretTable} (a few compared in constant time, more
 * looked up by SHA-256; never an early exit on the secret's content);
 * `passwordHash` users are verified with scrypt once, then served from a
 * bounded cache keyed by the SHA-256 of the credential.
 * D-AUTH-06: found like static bearer tokens (D-AUTH-11); hashing every request was the cost above the peer.
 */
export class BasicBackend implements BasicCredentialBackend {
  readonly #plain: SecretTable<Avatar>
  readonly #hashed = new Map<string, { hash: PasswordHash, avatar: Avatar }>()
  readonly #verified: BoundedCache<Avatar>
  readonly #ttlMs: number
  readonly #guard: PasswordGuard

  constructor (entries: Readonly<Record<string, BasicEntry>>, cache: CacheOptions, guard: PasswordGuard) {
    this.#guard = guard
    const plain: Array<[string, Avatar]> = []
    for (const [user, entry] of Object.entries(entries)) {
      const where = `basic.${user}`
      if (user === '' || user.includes(':') || hasControlCharacter(user)) {
        throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'a user name cannot be empty or contain ":" or control characters')
      }
      const hasPassword = typeof entry?.password === 'string' && entry.password !== ''
      const hasHash = typeof entry?.passwordHash === 'string' && entry.passwordHash !== ''
      if (hasPassword === hasHash) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'give exactly one of password or passwordHash')
      const avatar = new Avatar(user, { tags: configTags(entry.tags, `${where}.tags`), backend: 'basic' })
      if (hasPassword) {
        // A plain entry is found by a table lookup that no lockout can stand in
        // front of without costing every request: refused rather than left
        // unprotected. D-AUTH-54.
        if (guard.locks) throw new GATEHOUSE_AUTH_INVALID_CONFIG('basicLockout', `cannot protect ${where}, a plain password: give it as passwordHash (gatehouse users hash), or use basic: { users: store }`)
        plain.push([Buffer.from(`${user}:${entry.password!}`, 'utf8').toString('base64'), avatar])
      } else {
        let hash: PasswordHash
        try {
          hash = parsePasswordHash(entry.passwordHash!)
        } catch (err) {
          // The key and the way to make a good one (D-CONFIG-11): the scrypt parameters are checked only here.
          throw new GATEHOUSE_AUTH_INVALID_CONFIG(`${where}.passwordHash`, `${(err as Error).message}; make one with \`gatehouse users hash\``)
        }
        this.#hashed.set(user, { hash, avatar })
      }
    }
    this.#plain = new SecretTable(plain)
    this.#verified = new BoundedCache(cache.max)
    this.#ttlMs = cache.ttl * 1000
  }

  /** The caller for credentials already known (a plain entry, or verified and cached), without decoding them. */
  known (credentials: string, now: number): Avatar | undefined {
    // D-AUTH-06: the credential's SHA-256 only while the cache of verified hashes holds anything.
    return this.#plain.find(credentials) ?? (this.#verified.size === 0 ? undefined : this.#verified.get(sha256(credentials), now))
  }

  authenticate (credentials: string, now: number, request: unknown): Outcome | Promise<Outcome> {
    const decoded = decodeBasic(credentials)
    if (!('user' in decoded)) return decoded
    if (this.#hashed.size === 0) return INVALID
    // D-AUTH-43: every scrypt check goes through the guard.
    return this.#guard.check(decoded.user, request, () => this.#verifyHashed(decoded.user, decoded.password, sha256(credentials), now))
      .then((avatar) => avatar ?? INVALID)
  }

  async #verifyHashed (user: string, password: string, digest: string, now: number): Promise<Avatar | null> {
    const entry = this.#hashed.get(user)
    // Unknown names cost a hash too, so timing does not tell which exist.
    if (entry === undefined) return (await verifyAgainstDummy(password), null)
    if (!(await verifyPassword(password, entry.hash))) return null
    this.#verified.set(digest, entry.avatar, now + this.#ttlMs)
    return entry.avatar
  }
}
