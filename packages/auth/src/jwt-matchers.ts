import { isRegExp } from 'node:util/types'

/** A claim matcher as configured: an exact string or a RegExp. */
export type ClaimPattern = string | RegExp

/** One matcher or a list mixing strings and RegExps (any one matching accepts). */
export type ClaimPatterns = ClaimPattern | readonly ClaimPattern[]

/** Compiled patterns: exact strings in a set, RegExps tested in order. */
export interface ClaimMatcher {
  readonly test: (value: unknown) => boolean
  /** The accepted values when they are all exact strings (no RegExp); lets auth pick verifiers by `iss` before a signature check. */
  readonly exact?: ReadonlySet<string>
}

/**
 * Compiles `issuer`, `audience`, `subject`, `jwtId` or `nonce`; throws
 * `fail(problem)` for anything but a non-empty string, a RegExp without the
 * stateful `g`/`y` flags, or a non-empty list of them. A string matches
 * exactly (case-sensitive, RFC 7519 §2 StringOrURI); a RegExp as
 * `RegExp.test` does, anywhere in the value unless anchored.
 * D-AUTH-48.
 */
export function compileClaimPatterns (option: unknown, fail: (problem: string) => never): ClaimMatcher {
  const items: readonly unknown[] = Array.isArray(option) ? option : [option]
  if (items.length === 0) fail('must be a string, a RegExp or a non-empty list of them')
  const exact = new Set<string>()
  const patterns: RegExp[] = []
  for (const item of items) {
    if (typeof item === 'string' && item !== '') {
      exact.add(item)
    } else if (isRegExp(item)) {
      // A g or y RegExp keeps lastIndex between calls: test() would answer
      // differently for the same token on alternate requests.
      if (item.global || item.sticky) fail(`${String(item)}: the g and y flags make a RegExp stateful; drop them`)
      patterns.push(item)
    } else {
      fail('must be a string, a RegExp or a non-empty list of them (an empty string matches nothing)')
    }
  }
  if (patterns.length === 0) return { test: (value) => typeof value === 'string' && exact.has(value), exact }
  return { test: (value) => typeof value === 'string' && (exact.has(value) || patterns.some((p) => p.test(value))) }
}
