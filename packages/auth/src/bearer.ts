import { Avatar } from '@gatehouse/core'
import { constantTimeEqual, sha256 } from './digest.js'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'

/** One static bearer token; the caller's identity is the entry's name. */
export interface BearerEntry {
  token: string
  tags?: string | readonly string[]
}

/** RFC 6750 b64token characters. */
export const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/

/**
 * Up to this many tokens, comparing the candidate with every one of them in
 * constant time costs less than hashing it (a SHA-256 is ~0.3 µs, a compare
 * of a 43-character token ~0.05 µs); past it, the digest map keeps the
 * lookup O(1). Measured in bench/auth (docs/decisions.md).
 */
export const SCAN_LIMIT = 8

interface ScannedToken {
  readonly token: string
  readonly avatar: Avatar
}

/**
 * Static bearer tokens. The candidate is never compared with an early exit
 * on content: a few tokens are all compared in constant time, more are
 * looked up by the SHA-256 of the candidate.
 */
export class StaticTokens {
  readonly #scan: readonly ScannedToken[] | undefined
  readonly #byDigest: ReadonlyMap<string, Avatar> | undefined

  constructor (entries: Readonly<Record<string, BearerEntry>>) {
    const tokens: ScannedToken[] = []
    const digests = new Set<string>()
    for (const [name, entry] of Object.entries(entries)) {
      const where = `bearer.${name}`
      if (typeof entry?.token !== 'string' || entry.token === '') throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'token is required')
      if (!TOKEN68.test(entry.token)) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'token must be RFC 6750 b64token characters')
      if (entry.token.startsWith('gak_')) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'tokens starting with gak_ are API keys; issue them with the key store')
      const digest = sha256(entry.token)
      if (digests.has(digest)) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'the same token is configured twice')
      digests.add(digest)
      tokens.push({ token: entry.token, avatar: new Avatar(name, { tags: entry.tags, backend: 'bearer' }) })
    }
    if (tokens.length <= SCAN_LIMIT) {
      this.#scan = tokens
    } else {
      this.#byDigest = new Map(tokens.map(({ token, avatar }) => [sha256(token), avatar]))
    }
  }

  get size (): number {
    return this.#scan?.length ?? this.#byDigest!.size
  }

  /** The caller for `token`, or undefined. */
  find (token: string): Avatar | undefined {
    const scan = this.#scan
    if (scan === undefined) return this.#byDigest!.get(sha256(token))
    // Every entry is compared, whichever matches: the time depends on the
    // candidate and the configured lengths, never on where they differ.
    let found: Avatar | undefined
    for (let i = 0; i < scan.length; i++) {
      const entry = scan[i]!
      if (constantTimeEqual(entry.token, token)) found = entry.avatar
    }
    return found
  }
}
