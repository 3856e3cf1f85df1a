// Node's HTTP parser keeps the first Authorization header and drops the
// others (RFC 9110 §5.3: it is not a list header); a proxy in front may keep
// the last one. The raw header list still holds them all (D-AUTH-18).

const NAME = 'authorization'

// ASCII case-insensitive: every character of NAME is a lower-case letter,
// so `| 0x20` folds exactly A–Z onto a–z and nothing else onto a letter.
function isAuthorization (name: string): boolean {
  if (name === 'Authorization' || name === NAME) return true
  for (let i = 0; i < NAME.length; i++) {
    if ((name.charCodeAt(i) | 0x20) !== NAME.charCodeAt(i)) return false
  }
  return true
}

/**
 * Whether `rawHeaders` (`[name, value, name, value, …]`, as on
 * `IncomingMessage`) names `Authorization` more than once, in any case.
 * One pass, no allocation; only names of 13 characters are compared.
 */
export function repeatsAuthorization (rawHeaders: readonly string[]): boolean {
  let seen = false
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (name.length === NAME.length && isAuthorization(name)) {
      if (seen) return true
      seen = true
    }
  }
  return false
}
