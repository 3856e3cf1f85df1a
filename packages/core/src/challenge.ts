// RFC 9110 §5.6.4 quoted-string: backslash and double quote are escaped;
// control characters cannot be represented and are refused.
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are refused
const NOT_QUOTABLE = /[\x00-\x08\x0a-\x1f\x7f]/
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** Quotes `value` as an RFC 9110 quoted-string. Throws `TypeError` on control characters. */
export function quoteString (value: string): string {
  if (NOT_QUOTABLE.test(value)) {
    throw new TypeError('a quoted header parameter cannot contain control characters')
  }
  return '"' + value.replace(/[\\"]/g, '\\$&') + '"'
}

/**
 * Formats an RFC 9110 §11.3 challenge for `WWW-Authenticate`, e.g.
 * `formatChallenge('Bearer', { realm: 'api', error: 'invalid_token' })` →
 * `Bearer realm="api", error="invalid_token"`. Parameter values are always
 * quoted; parameters whose value is `undefined` are left out.
 */
export function formatChallenge (scheme: string, params: Readonly<Record<string, string | undefined>> = {}): string {
  if (!TOKEN.test(scheme)) throw new TypeError(`invalid auth scheme ${JSON.stringify(scheme)}`)
  const parts: string[] = []
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue
    if (!TOKEN.test(name)) throw new TypeError(`invalid auth parameter name ${JSON.stringify(name)}`)
    parts.push(`${name}=${quoteString(value)}`)
  }
  return parts.length === 0 ? scheme : `${scheme} ${parts.join(', ')}`
}
