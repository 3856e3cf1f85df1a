/**
 * Normalises a tag list given as a comma-separated string or a list of
 * strings: items are trimmed, empty items dropped, duplicates removed
 * (first occurrence wins, order kept).
 *
 * `null` and `undefined` give an empty list. Anything else is a programming
 * error and throws `TypeError`; code reading untrusted input (JWT claims,
 * files) checks the type before calling this.
 */
export function parseTags (input: string | readonly string[] | null | undefined): string[] {
  if (input === null || input === undefined) return []
  const items = typeof input === 'string' ? input.split(',') : input
  if (!Array.isArray(items)) {
    throw new TypeError(`tags must be a comma-separated string or a list of strings, got ${typeof input}`)
  }
  const seen = new Set<string>()
  for (const item of items) {
    if (typeof item !== 'string') {
      throw new TypeError(`tags must be strings, got ${typeof item}`)
    }
    const tag = item.trim()
    if (tag !== '') seen.add(tag)
  }
  return [...seen]
}
