import { invalidTag, invalidTagMessage, parseTags, SUPERADMIN } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'

/**
 * Tags given in options (`basic.alice.tags`, `jwt.main.allowedTags`…): a
 * comma-separated string or a list, each tag in the rule grammar's
 * alphabet. Throws `GATEHOUSE_AUTH_INVALID_CONFIG` naming `where`.
 * D-RULES-06.
 */
export function configTags (value: unknown, where: string): string[] {
  let tags: string[]
  try {
    tags = parseTags(value as string | readonly string[] | null | undefined)
  } catch {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'must be a comma-separated string or a list of strings')
  }
  const bad = invalidTag(tags)
  if (bad !== undefined) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, invalidTagMessage(bad))
  return tags
}

// The tag options of a JWT verifier, resolved at boot (what its tokens grant
// is read per request in jwt.ts).

/** Which tags the tokens of one JWT verifier may grant. */
export interface TokenTagPolicy {
  /** The claim holding them; `undefined`: tokens grant no tags. */
  readonly claim: string | undefined
  /** The only tags a token may grant; `undefined`: any tag but SUPERADMIN (unless allowed). */
  readonly allowed: ReadonlySet<string> | undefined
  /** Whether a token may grant SUPERADMIN. */
  readonly allowSuperadmin: boolean
}

/** The tag options of a JWT verifier (documented on `JwtVerifierOptions`). */
export interface TokenTagOptions {
  tags?: string | readonly string[]
  tagsClaim?: string
  allowedTags?: string | readonly string[]
  allowSuperadmin?: boolean
}

/** A verifier's own tags (configuration) and what its tokens may grant. */
export interface TokenTagSettings {
  readonly tags: readonly string[]
  readonly policy: TokenTagPolicy
}

// The claim is named in error descriptions, so in a WWW-Authenticate header (D-AUTH-13).
const CLAIM_NAME = /^[\x20-\x7e]+$/

/**
 * Resolves a verifier's tag options once, at boot; throws
 * `GATEHOUSE_AUTH_INVALID_CONFIG` naming the option under `where`
 * (`jwt.main.allowedTags: …`). SUPERADMIN in `tags` or `allowedTags` needs
 * `allowSuperadmin`; `allowedTags` needs `tagsClaim`.
 * D-AUTH-15: SUPERADMIN from a verifier needs allowSuperadmin, in the claim and in `tags`; D-AUTH-14.
 */
export function tokenTagSettings (options: TokenTagOptions, where: string): TokenTagSettings {
  const fail = (key: string, problem: string): never => { throw new GATEHOUSE_AUTH_INVALID_CONFIG(`${where}.${key}`, problem) }
  const { tagsClaim, allowSuperadmin = false } = options
  if (typeof allowSuperadmin !== 'boolean') fail('allowSuperadmin', 'must be true or false')
  if (tagsClaim !== undefined && (typeof tagsClaim !== 'string' || !CLAIM_NAME.test(tagsClaim))) {
    fail('tagsClaim', 'must be a claim name of printable ASCII characters')
  }
  const tags = configTags(options.tags, `${where}.tags`)
  if (tags.includes(SUPERADMIN) && !allowSuperadmin) fail('tags', `${SUPERADMIN} would be granted to every token of this verifier; set allowSuperadmin: true to mean it`)
  let allowed: ReadonlySet<string> | undefined
  if (options.allowedTags !== undefined) {
    if (tagsClaim === undefined) fail('allowedTags', 'limits the tags of tagsClaim; set tagsClaim too')
    allowed = new Set(configTags(options.allowedTags, `${where}.allowedTags`))
    if (allowed.has(SUPERADMIN) && !allowSuperadmin) fail('allowedTags', `lists ${SUPERADMIN}; set allowSuperadmin: true to let tokens grant it`)
  }
  return { tags, policy: { claim: tagsClaim, allowed, allowSuperadmin } }
}
