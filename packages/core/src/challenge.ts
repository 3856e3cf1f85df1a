import { GATEHOUSE_CORE_INVALID_CHALLENGE } from './errors.js'
import { isToken } from './http-syntax.js'

// RFC 9110 §5.6.4 quoted-string: backslash and double quote are escaped;
// control characters cannot be represented and are refused.
// eslint-disable-next-line no-control-regex -- the control characters are the point
const NOT_QUOTABLE = /[\x00-\x08\x0a-\x1f\x7f]/

/** Quotes `value` as an RFC 9110 quoted-string. Throws `GATEHOUSE_CORE_INVALID_CHALLENGE` on control characters. */
export function quoteString (value: string): string {
  if (NOT_QUOTABLE.test(value)) {
    throw new GATEHOUSE_CORE_INVALID_CHALLENGE('a quoted parameter value cannot contain control characters')
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
  if (!isToken(scheme)) throw new GATEHOUSE_CORE_INVALID_CHALLENGE(`the auth scheme ${JSON.stringify(scheme)} is not a token`)
  const parts: string[] = []
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue
    if (!isToken(name)) throw new GATEHOUSE_CORE_INVALID_CHALLENGE(`the auth parameter name ${JSON.stringify(name)} is not a token`)
    parts.push(`${name}=${quoteString(value)}`)
  }
  return parts.length === 0 ? scheme : `${scheme} ${parts.join(', ')}`
}
