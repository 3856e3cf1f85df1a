import { Avatar, isPlainObject, sha256 } from '@fastify-gatehouse/core'
import type { FastifyRequest } from 'fastify'
import { BasicBackend, decodeBasic, INVALID, type BasicCredentialBackend, type BasicEntry, type CacheOptions, type Outcome } from './basic.js'
import { BoundedCache } from './bounded-cache.js'
import { callCallback, type CallbackAnswer } from './callback-result.js'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'
import { storeCall } from './outside-call.js'
import type { PasswordGuard } from './password-guard.js'
import type { UserStore } from './user-store.js'

/**
 * Checks a Basic user name and password: the caller (an Avatar), their tags
 * (the caller is then `identity` with these tags), or null to refuse. May be
 * async; given `callbackTimeout` to answer (then 503). Throw an `HttpError`
 * to answer with your own status; anything else thrown is a 500 (logged by
 * its class and code only, never its message: D-AUTH-63).
 */
export type BasicValidate = (identity: string, password: string, request: FastifyRequest) => CallbackAnswer | Promise<CallbackAnswer>

/**
 * The `basic` option: one of three forms, told apart by type.
 * - a map of users: `{ alice: { password | passwordHash, tags } }`;
 * - a user store: `{ users: store }` (any `UserStore`: memory, file, PostgreSQL);
 * - a function: `{ validate (identity, password, request) { … } }`.
 * A user may be named `users` or `validate` in a map: its entry is an
 * object, never a store or a function.
 */
export type BasicOption =
  | Readonly<Record<string, BasicEntry>>
  | { readonly users: UserStore }
  | { readonly validate: BasicValidate }

type Source =
  | { readonly kind: 'map', readonly entries: Readonly<Record<string, BasicEntry>> }
  | { readonly kind: 'store', readonly store: UserStore }
  | { readonly kind: 'validate', readonly validate: BasicValidate }

const isUserStore = (value: unknown): value is UserStore =>
  typeof value === 'object' && value !== null && typeof (value as Partial<UserStore>).verify === 'function'

/**
 * Which form `basic` is (see {@link BasicOption}); throws
 * `GATEHOUSE_AUTH_INVALID_CONFIG` naming the key when the forms are mixed,
 * or when `users` / `validate` is neither an entry nor what the form needs
 * (a store or a function cannot come from a config file).
 * D-AUTH-41.
 */
export function basicSource (basic: unknown): Source | undefined {
  if (basic === undefined) return undefined
  if (!isPlainObject(basic)) throw new GATEHOUSE_AUTH_INVALID_CONFIG('basic', 'must be a map of users, { users: <UserStore> } or { validate: <function> }')
  const { users, validate } = basic as Record<string, unknown>
  // An entry is a plain object of strings: an object literal with a verify method is a store.
  const store = users !== undefined && (!isPlainObject(users) || isUserStore(users))
  const fn = validate !== undefined && !isPlainObject(validate)
  if (store && !isUserStore(users)) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG('basic.users', 'must be a UserStore (give it in code: a config file cannot hold one), or the entry of a user named users: { password | passwordHash, tags }')
  }
  if (store && typeof users.standing !== 'function') {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG('basic.users', 'this UserStore has no standing(identity): cached credentials could not notice a changed user')
  }
  if (fn && typeof validate !== 'function') {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG('basic.validate', 'must be a function (identity, password, request) (give it in code: a config file cannot hold one), or the entry of a user named validate: { password | passwordHash, tags }')
  }
  if (store && fn) throw new GATEHOUSE_AUTH_INVALID_CONFIG('basic', 'give users (a UserStore) or validate (a function), not both')
  if (store || fn) {
    const others = Object.keys(basic).filter((key) => !(key === 'users' && store) && !(key === 'validate' && fn))
    if (others.length > 0) {
      const form = store ? 'users (a UserStore)' : 'validate (a function)'
      throw new GATEHOUSE_AUTH_INVALID_CONFIG('basic', `with ${form} it takes no other key, found ${others.map((k) => JSON.stringify(k)).join(', ')}: give one source of Basic users`)
    }
    return store ? { kind: 'store', store: users } : { kind: 'validate', validate: validate as BasicValidate }
  }
  if (Object.keys(basic).length === 0) return undefined
  return { kind: 'map', entries: basic as Record<string, BasicEntry> }
}

/** The Basic backend for `basic` in whichever form, or undefined when there is none; `timeoutMs` limits each call of a store or `validate`. */
export function basicBackend (basic: unknown, cache: CacheOptions, guard: PasswordGuard, timeoutMs: number): BasicCredentialBackend | undefined {
  const source = basicSource(basic)
  if (source === undefined) return undefined
  if (source.kind === 'map') return new BasicBackend(source.entries, cache, guard)
  return new SourceBackend(source, cache, guard, timeoutMs)
}

interface Verified {
  readonly avatar: Avatar
  /** The store's credential stamp when verified; undefined for `validate` (a store's hit always has one). */
  readonly stamp: string | undefined
}

/**
 * Basic users from a `UserStore` or a `validate` function: a verified
 * credential is cached by its SHA-256 (bounded, `basicCache`). A store's
 * cached credential is re-checked on each use with `standing(identity)`,
 * which is cheap (no hashing): a disabled or deleted user is refused and
 * forgotten, a new password (another stamp) is verified again, new tags are
 * the caller's at once. A `validate` answer is kept for the cache's `ttl`.
 * D-AUTH-42.
 */
class SourceBackend implements BasicCredentialBackend {
  readonly #source: Exclude<Source, { kind: 'map' }>
  readonly #verified: BoundedCache<Verified>
  readonly #ttlMs: number
  readonly #guard: PasswordGuard
  readonly #timeoutMs: number

  constructor (source: Exclude<Source, { kind: 'map' }>, cache: CacheOptions, guard: PasswordGuard, timeoutMs: number) {
    this.#source = source
    this.#verified = new BoundedCache(cache.max)
    this.#ttlMs = cache.ttl * 1000
    this.#guard = guard
    this.#timeoutMs = timeoutMs
  }

  // A store's hit needs its standing (I/O): only validate's hits are served here.
  known (credentials: string, now: number): Avatar | undefined {
    if (this.#source.kind !== 'validate' || this.#verified.size === 0) return undefined
    return this.#verified.get(sha256(credentials), now)?.avatar
  }

  // validate's hits stand for the ttl and were served by known(); a store's
  // hit is re-checked however it was stored.
  authenticate (credentials: string, now: number, request: unknown): Outcome | Promise<Outcome> {
    if (this.#source.kind === 'validate' || this.#verified.size === 0) return this.#verify(credentials, undefined, now, request)
    const digest = sha256(credentials)
    const hit = this.#verified.get(digest, now)
    return hit === undefined ? this.#verify(credentials, digest, now, request) : this.#followUser(hit, digest, credentials, now, request)
  }

  async #followUser (hit: Verified, digest: string, credentials: string, now: number, request: unknown): Promise<Outcome> {
    const { identity } = hit.avatar
    const { store } = this.#source as { store: UserStore }
    const standing = await storeCall('UserStore.standing', this.#timeoutMs, () => store.standing(identity))
    // Disabled or deleted: refused, but the entry stays, so a client retrying
    // costs a standing() and not a password hash each time (nor a slot of
    // basicConcurrency). A re-enable serves it again; a new password or a
    // re-created user has another stamp and is verified afresh.
    if (standing === null) return INVALID
    if (standing.stamp !== hit.stamp) {
      this.#verified.delete(digest)
      return this.#verify(credentials, digest, now, request)
    }
    if (sameTags(standing.tags, hit.avatar.tags)) return hit.avatar
    const avatar = new Avatar(identity, { tags: standing.tags, backend: 'basic' })
    this.#verified.set(digest, { avatar, stamp: hit.stamp }, now + this.#ttlMs)
    return avatar
  }

  #verify (credentials: string, digest: string | undefined, now: number, request: unknown): Outcome | Promise<Outcome> {
    const decoded = decodeBasic(credentials)
    if (!('user' in decoded)) return decoded
    const { user, password } = decoded
    let stamp: string | undefined
    const source = this.#source
    const verify = source.kind === 'store'
      ? async (): Promise<Avatar | null> => {
        // What a store throws may hold the password: a fresh error replaces it (D-AUTH-63).
        const verified = await storeCall('UserStore.verify', this.#timeoutMs, () => source.store.verify(user, password))
        if (verified === null) return null
        // A store of yours that gives no stamp: its users are verified on every request.
        stamp = typeof verified.stamp === 'string' && verified.stamp !== '' ? verified.stamp : undefined
        return new Avatar(verified.identity, { tags: verified.tags, backend: 'basic' })
      }
      : async (): Promise<Avatar | null> => await callCallback('basic.validate', this.#timeoutMs, () => source.validate(user, password, request as FastifyRequest),
        (tags) => new Avatar(user, { tags, backend: 'basic' }))
    return this.#guard.check(user, request, verify).then((avatar) => {
      if (avatar === null) return INVALID
      // Without a stamp a new password could not be noticed: nothing to cache.
      if (source.kind === 'store' && stamp === undefined) return avatar
      this.#verified.set(digest ?? sha256(credentials), { avatar, stamp }, now + this.#ttlMs)
      return avatar
    })
  }
}

function sameTags (a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((tag, i) => tag === b[i])
}
