import { Avatar } from '@gatehouse/core'
import { sha256 } from './digest.js'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'

/** One static bearer token; the caller's identity is the entry's name. */
export interface BearerEntry {
  token: string
  tags?: string | readonly string[]
}

/** RFC 6750 b64token characters. */
export const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/

/** Static bearer tokens, looked up in O(1) by their SHA-256. */
export class StaticTokens {
  readonly #byDigest = new Map<string, Avatar>()

  constructor (entries: Readonly<Record<string, BearerEntry>>) {
    for (const [name, entry] of Object.entries(entries)) {
      const where = `bearer.${name}`
      if (typeof entry?.token !== 'string' || entry.token === '') throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'token is required')
      if (!TOKEN68.test(entry.token)) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'token must be RFC 6750 b64token characters')
      if (entry.token.startsWith('gak_')) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'tokens starting with gak_ are API keys; issue them with the key store')
      const digest = sha256(entry.token)
      if (this.#byDigest.has(digest)) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'the same token is configured twice')
      this.#byDigest.set(digest, new Avatar(name, { tags: entry.tags, backend: 'bearer' }))
    }
  }

  get size (): number {
    return this.#byDigest.size
  }

  /** The caller for `token`, or undefined. */
  find (token: string): Avatar | undefined {
    return this.#byDigest.get(sha256(token))
  }
}
