import { formatChallenge, isToken } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'

/** How the bearer scheme's name must be written: in any case (RFC 9110 §11.1), or exactly (RFC 6750 as @fastify/bearer-auth reads it). */
export type BearerCase = 'insensitive' | 'exact'

const TCHAR = "[!#$%&'*+.^_`|~0-9A-Za-z-]"

/**
 * The scheme bearer tokens (static, `bearer.auth`, JWTs, API keys) are sent
 * with: `bearerType` (default `Bearer`), matched in any case or exactly
 * (`bearerCase`), and named in every challenge of that kind.
 * D-AUTH-47.
 */
export class BearerScheme {
  /** The name as configured, as challenges write it. */
  readonly name: string
  /** The fast path's prefix: the name and one space. */
  readonly prefix: string
  readonly #lower: string
  readonly #exact: boolean
  readonly #named: RegExp

  constructor (type: unknown = 'Bearer', schemeCase: unknown = 'insensitive') {
    if (typeof type !== 'string' || !isToken(type) || type.length > 64) {
      throw new GATEHOUSE_AUTH_INVALID_CONFIG('bearerType', 'must be an HTTP auth-scheme name (a token of letters, digits and !#$%&\'*+.^_`|~-, at most 64 characters), e.g. Bearer')
    }
    if (type.toLowerCase() === 'basic') throw new GATEHOUSE_AUTH_INVALID_CONFIG('bearerType', 'cannot be Basic: that scheme carries user:password')
    if (schemeCase !== 'insensitive' && schemeCase !== 'exact') {
      throw new GATEHOUSE_AUTH_INVALID_CONFIG('bearerCase', 'must be "insensitive" (RFC 9110, the default) or "exact" (RFC 6750 as @fastify/bearer-auth reads it)')
    }
    this.name = type
    this.prefix = `${type} `
    this.#lower = type.toLowerCase()
    this.#exact = schemeCase === 'exact'
    const escaped = type.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    // A header the parser refused whose scheme is this one: its malformation is RFC 6750's to name.
    this.#named = new RegExp(`^[ \\t]*${escaped}(?:$|(?!${TCHAR}))`, this.#exact ? '' : 'i')
  }

  /** Whether a parsed header (scheme lower-cased by the parser) is this scheme, in an accepted spelling. */
  is (scheme: string, header: string): boolean {
    return scheme === this.#lower && (!this.#exact || this.spelledExactly(header))
  }

  /** Whether the header's scheme is this one in another letter case (refused when `exact`). */
  miscased (scheme: string, header: string): boolean {
    return this.#exact && scheme === this.#lower && !this.spelledExactly(header)
  }

  spelledExactly (header: string): boolean {
    return header.trimStart().startsWith(this.name)
  }

  /** Whether the header, unreadable to the parser, names this scheme. */
  names (header: string): boolean {
    return this.#named.test(header)
  }

  challenge (realm: string, error?: string, description?: string): string {
    return formatChallenge(this.name, { realm, error, error_description: description })
  }
}
