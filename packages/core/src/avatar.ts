import { parseTags } from './tags.js'
import { GATEHOUSE_CORE_INVALID_AVATAR } from './errors.js'
import { brandClass } from './shared-identity.js'

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

  constructor (identity: string, init: AvatarInit) {
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
    // D-RULES-06: the alphabet is not enforced here: an avatar built from stored data must not become a 500.
    const tags = parseTags(init.tags)
    this.identity = identity
    this.tags = Object.freeze(tags)
    this.backend = init.backend
    this.#authenticatedAt = at
    this.#tagSet = new Set(tags)
  }

  /**
   * When the caller last proved who they are, in ms since the epoch, or
   * `null` when unknown (API keys, static bearer tokens): what a route's
   * `fresh` option compares with.
   */
  get authenticatedAt (): number | null {
    return this.#authenticatedAt
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
