import { GATEHOUSE_CORE_INVALID_TAGS } from './errors.js'

/**
 * The characters a tag is made of, as a regular-expression character class:
 * the route-rule grammar's `TAG := [A-Za-z0-9_.:-]+` (see auth-rule.ts,
 * which builds its tokenizer from this). A tag outside this alphabet could
 * never be named by a rule, and may carry look-alikes or separators that
 * mean something else elsewhere; it is refused wherever tags come in.
 * D-RULES-06: the one tag alphabet, checked at each boundary with that boundary's error.
 */
export const TAG_CHARACTERS = '[A-Za-z0-9_.:-]'

const TAG = new RegExp(`^${TAG_CHARACTERS}+$`)

/**
 * The tag of the bootstrapped administrator: the admin API
 * (`/_server/users`, `/_server/tokens`) requires it. A JWT never grants it
 * unless its verifier sets `allowSuperadmin`.
 * D-AUTH-16: defined in core, so auth can refuse it without importing the server.
 */
export const SUPERADMIN = 'SUPERADMIN'

/**
 * Normalises a tag list given as a comma-separated string or a list of
 * strings: items are trimmed, empty items dropped, duplicates removed
 * (first occurrence wins, order kept). The alphabet is not checked here:
 * input from outside goes through {@link invalidTag} as well.
 *
 * `null` and `undefined` give an empty list. Anything else is a programming
 * error and throws `TypeError`; code reading untrusted input (JWT claims,
 * files) checks the type before calling this.
 */
export function parseTags (input: string | readonly string[] | null | undefined): string[] {
  if (input === null || input === undefined) return []
  const items = typeof input === 'string' ? input.split(',') : input
  if (!Array.isArray(items)) {
    throw new GATEHOUSE_CORE_INVALID_TAGS(`expected a comma-separated string or a list of strings, got ${typeof input}`)
  }
  const seen = new Set<string>()
  for (const item of items) {
    if (typeof item !== 'string') {
      throw new GATEHOUSE_CORE_INVALID_TAGS(`each tag must be a string, got ${typeof item}`)
    }
    const tag = item.trim()
    if (tag !== '') seen.add(tag)
  }
  return [...seen]
}

/** Whether `value` is a tag: one or more of the characters of {@link TAG_CHARACTERS}. */
export function isTag (value: unknown): value is string {
  return typeof value === 'string' && TAG.test(value)
}

/** The first of `tags` that is not a tag (see {@link isTag}), or `undefined` when all are. */
export function invalidTag (tags: readonly string[]): string | undefined {
  for (const tag of tags) if (!isTag(tag)) return tag
  return undefined
}

/**
 * Why `tag` is refused, for an error message: the tag quoted as JSON (so
 * control characters show escaped) and the allowed characters.
 */
export function invalidTagMessage (tag: string): string {
  return `tag ${JSON.stringify(tag)} is not allowed: tags use only letters, digits and _ . : -`
}
