import { parseTags } from './tags.js'
import { GATEHOUSE_CORE_INVALID_AVATAR } from './errors.js'
import { brandClass } from './process-wide.js'

// Claims objects this module froze: a new avatar for the same caller (a
// Basic sign-in time, fresh tags) shares them instead of copying.
const frozenClaims = new WeakSet<object>()

// Set by Avatar.withCheckedTags for the one constructor call it makes, read
// (and cleared) by that call. A module variable, not a key a caller could
// pass: each copy of core trusts only its own lists, and no init object from
// outside can claim its tags were checked.
let tagsChecked = false

/** How an {@link Avatar} is built. */
export interface AvatarInit {
  /** Tags as a comma string or a list; trimmed, empties dropped. Default: none. */
  tags?: string | readonly string[] | null
  /**
   * Which mechanism authenticated the caller: `basic`, `bearer`,
   * `jwt:<name>`, `api_key`, `session` or `oidc:<provider>`.
   */
  backend: string
  /**
   * When the caller last proved who they are (ms since the epoch): the
   * sign-in of a session, now for a Basic password, a JWT's `auth_time`.
   * `null` (the default) when nothing says: such a caller is never fresh.
   */
  authenticatedAt?: number | null
  /**
   * The verified claims the caller was authenticated by (a JWT's payload, an
   * OIDC ID token's claims), JSON data. Copied and frozen, nested values too.
   * `null` (the default) for callers without claims (Basic, API keys).
   */
  claims?: Readonly<Record<string, unknown>> | null
}

/**
 * A frozen copy of JSON-shaped `value`; throws on anything else (a function,
 * a class instance, a cycle), since claims are what a token carried.
 */
function frozenJson (value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value
  } else if (depth < 32 && typeof value === 'object') {
    if (Array.isArray(value)) return Object.freeze(value.map((v) => frozenJson(v, depth + 1)))
    const proto = Object.getPrototypeOf(value)
    if (proto === Object.prototype || proto === null) {
      const copy: Record<string, unknown> = {}
      for (const k of Object.keys(value)) {
        const v = frozenJson((value as Record<string, unknown>)[k], depth + 1)
        // A "__proto__" key from JSON.parse is an own property: keep it one
        // (assigning it would set the prototype). Only that key pays for defineProperty.
        if (k === '__proto__') Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true })
        else copy[k] = v
      }
      return Object.freeze(copy)
    }
  }
  throw new GATEHOUSE_CORE_INVALID_AVATAR('claims must be JSON data: objects, lists, strings, finite numbers, booleans and null, nested at most 32 deep')
}

/**
 * The authenticated caller of a request, found at `request.scope.auth`.
 * Immutable: tags are fixed when the avatar is built.
 */
export class Avatar {
  /** Who the caller is (user name, JWT `sub`, API key label…). */
  readonly identity: string
  /** The caller's tags, as matched by route `authRule`s. */
  readonly tags: readonly string[]
  /** The backend that authenticated the caller. */
  readonly backend: string
  readonly #tagSet: ReadonlySet<string>
  // A getter, not an own field: the avatar's own properties, what spreads and
  // deep comparisons see, stay identity, tags and backend (D-AUTH-31).
  readonly #authenticatedAt: number | null
  readonly #claims: Readonly<Record<string, unknown>> | null

  constructor (identity: string, init: AvatarInit) {
    // Read and cleared before anything else runs: a getter on `init` that
    // made an avatar of its own must not find the flag still set.
    const trusted = tagsChecked
    tagsChecked = false
    if (typeof identity !== 'string' || identity === '') {
      throw new GATEHOUSE_CORE_INVALID_AVATAR('the identity must be a non-empty string')
    }
    if (init === null || typeof init !== 'object' || typeof init.backend !== 'string' || init.backend === '') {
      throw new GATEHOUSE_CORE_INVALID_AVATAR('it needs a backend name, e.g. new Avatar(id, { backend: "basic" })')
    }
    const at = init.authenticatedAt ?? null
    if (at !== null && !(typeof at === 'number' && Number.isFinite(at))) {
      throw new GATEHOUSE_CORE_INVALID_AVATAR('authenticatedAt must be a finite number of ms since the epoch, or null')
    }
    const claims = init.claims ?? null
    if (claims !== null && (typeof claims !== 'object' || Array.isArray(claims))) {
      throw new GATEHOUSE_CORE_INVALID_AVATAR('claims must be an object of JSON data, or null')
    }
    // D-RULES-06: the alphabet is not enforced here: an avatar built from stored data must not become a 500.
    const tags = trusted ? init.tags as readonly string[] : parseTags(init.tags)
    this.identity = identity
    this.tags = Object.freeze(tags)
    this.backend = init.backend
    this.#authenticatedAt = at
    // An avatar passed around already frozen is shared, not copied again.
    this.#claims = claims === null || frozenClaims.has(claims) ? claims : frozenJson(claims, 0) as Readonly<Record<string, unknown>>
    if (this.#claims !== null) frozenClaims.add(this.#claims)
    this.#tagSet = new Set(tags)
  }

  /**
   * An avatar whose `tags` are already what {@link parseTags} makes of them
   * (strings, trimmed, none empty, no duplicates), as a verifier that has
   * just parsed and checked them holds them: taken as they are (and frozen)
   * instead of being parsed again. Everything else is checked as by the
   * constructor. For Gatehouse's components; tags from anywhere else go
   * through the constructor.
   * D-AUTH-90.
   */
  static withCheckedTags (identity: string, init: AvatarInit & { tags: readonly string[] }): Avatar {
    tagsChecked = true
    try {
      return new Avatar(identity, init)
    } finally {
      tagsChecked = false
    }
  }

  /**
   * When the caller last proved who they are, in ms since the epoch, or
   * `null` when unknown (API keys, static bearer tokens): what a route's
   * `fresh` option compares with.
   */
  get authenticatedAt (): number | null {
    return this.#authenticatedAt
  }

  /**
   * The verified claims of a JWT or OIDC caller (frozen JSON data), or `null`.
   * A getter like `authenticatedAt`: claims may hold personal data (e-mail,
   * name), so they stay out of spreads and `toJSON`, and out of the logs.
   */
  get claims (): Readonly<Record<string, unknown>> | null {
    return this.#claims
  }

  /** Whether the caller carries `tag` (exact, case-sensitive match). */
  hasTag (tag: string): boolean {
    return this.#tagSet.has(tag)
  }

  // authenticatedAt stays out of the documented shape: apps that return or log an avatar show what they showed before (D-AUTH-31).
  toJSON (): { identity: string, tags: readonly string[], backend: string } {
    return { identity: this.identity, tags: this.tags, backend: this.backend }
  }
}
// An Avatar made by any copy of this package is an Avatar (auth checks `instanceof`). D-CORE-05.
brandClass(Avatar, 'core.Avatar.v1')
