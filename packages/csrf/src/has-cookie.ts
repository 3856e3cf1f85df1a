/**
 * Whether a Cookie header carries a cookie called `name`. A scan, not a
 * parse: csrf runs before the session component parses cookies, and only
 * presence matters here.
 */
export function hasCookie (header: string | undefined, name: string): boolean {
  if (header === undefined) return false
  for (let at = header.indexOf(name); at !== -1; at = header.indexOf(name, at + 1)) {
    if (header.charCodeAt(at + name.length) !== 61 /* = */) continue
    // The name must start a pair: only whitespace back to `;` or the start.
    let i = at - 1
    while (i >= 0 && (header[i] === ' ' || header[i] === '\t')) i--
    if (i < 0 || header[i] === ';') return true
  }
  return false
}
