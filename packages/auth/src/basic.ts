import { Avatar } from '@fastify-gatehouse/core'
import { BoundedCache } from './bounded-cache.js'
import { configTags } from './config-tags.js'
import { sha256 } from './digest.js'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'
import { SecretTable } from './secret-table.js'
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
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are refused
const CONTROL = /[\x00-\x1f\x7f]/
const INVALID = Object.freeze({ refused: 'invalid', detail: 'Invalid user name or password' } as const)

/**
 * RFC 7617 Basic. Plain passwords are found by the base64 credential
 * through a {@link SecretTable} (a few compared in constant time, more
 * looked up by SHA-256; never an early exit on the secret's content);
 * `passwordHash` users are verified with scrypt once, then served from a
 * bounded cache keyed by the SHA-256 of the credential.
 */
export class BasicBackend {
  readonly #plain: SecretTable<Avatar>
  readonly #hashed = new Map<string, { hash: PasswordHash, avatar: Avatar }>()
  readonly #verified: BoundedCache<Avatar>
  readonly #ttlMs: number

  constructor (entries: Readonly<Record<string, BasicEntry>>, cache: CacheOptions) {
    const plain: Array<[string, Avatar]> = []
    for (const [user, entry] of Object.entries(entries)) {
      const where = `basic.${user}`
      if (user === '' || user.includes(':') || CONTROL.test(user)) {
        throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'a user name cannot be empty or contain ":" or control characters')
      }
      const hasPassword = typeof entry?.password === 'string' && entry.password !== ''
      const hasHash = typeof entry?.passwordHash === 'string' && entry.passwordHash !== ''
      if (hasPassword === hasHash) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'give exactly one of password or passwordHash')
      const avatar = new Avatar(user, { tags: configTags(entry.tags, `${where}.tags`), backend: 'basic' })
      if (hasPassword) {
        plain.push([Buffer.from(`${user}:${entry.password!}`, 'utf8').toString('base64'), avatar])
      } else {
        let hash: PasswordHash
        try {
          hash = parsePasswordHash(entry.passwordHash!)
        } catch (err) {
          throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, (err as Error).message)
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
    return this.#plain.find(credentials) ?? (this.#verified.size === 0 ? undefined : this.#verified.get(sha256(credentials), now))
  }

  authenticate (credentials: string, now: number): Outcome | Promise<Outcome> {
    const known = this.known(credentials, now)
    if (known !== undefined) return known
    if (credentials.length % 4 !== 0 || !BASE64.test(credentials)) {
      return { refused: 'malformed', detail: 'Basic credentials must be base64' }
    }
    const decoded = Buffer.from(credentials, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon === -1 || CONTROL.test(decoded)) {
      return { refused: 'malformed', detail: 'Basic credentials must be user:password without control characters' }
    }
    if (this.#hashed.size === 0) return INVALID
    return this.#verifyHashed(decoded.slice(0, colon), decoded.slice(colon + 1), sha256(credentials), now)
  }

  async #verifyHashed (user: string, password: string, digest: string, now: number): Promise<Outcome> {
    const entry = this.#hashed.get(user)
    // Unknown names cost a hash too, so timing does not tell which exist.
    if (entry === undefined) return (await verifyAgainstDummy(password), INVALID)
    if (!(await verifyPassword(password, entry.hash))) return INVALID
    this.#verified.set(digest, entry.avatar, now + this.#ttlMs)
    return entry.avatar
  }
}
