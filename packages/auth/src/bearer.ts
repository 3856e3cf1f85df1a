import { Avatar, sha256 } from '@fastify-gatehouse/core'
import { configTags } from './config-tags.js'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'
import { SecretTable } from './secret-table.js'

/** One static bearer token; the caller's identity is the entry's name. */
export interface BearerEntry {
  token: string
  tags?: string | readonly string[]
}

/** RFC 6750 b64token characters. */
export const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/

/**
 * Static bearer tokens, found through a {@link SecretTable}: a few are all
 * compared with the candidate in constant time, more are looked up by the
 * SHA-256 of the candidate.
 * D-AUTH-11.
 */
export class StaticTokens {
  readonly #table: SecretTable<Avatar>

  constructor (entries: Readonly<Record<string, BearerEntry>>) {
    const tokens: Array<[string, Avatar]> = []
    const digests = new Set<string>()
    for (const [name, entry] of Object.entries(entries)) {
      const where = `bearer.${name}`
      if (typeof entry?.token !== 'string' || entry.token === '') throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'token is required')
      if (!TOKEN68.test(entry.token)) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'token must be RFC 6750 b64token characters')
      // D-AUTH-07: API keys belong in the key store.
      if (entry.token.startsWith('gak_')) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'tokens starting with gak_ are API keys; issue them with the key store')
      const digest = sha256(entry.token)
      if (digests.has(digest)) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'the same token is configured twice')
      digests.add(digest)
      tokens.push([entry.token, new Avatar(name, { tags: configTags(entry.tags, `${where}.tags`), backend: 'bearer' })])
    }
    this.#table = new SecretTable(tokens)
  }

  /** The caller for `token`, or undefined. */
  find (token: string): Avatar | undefined {
    return this.#table.find(token)
  }
}
