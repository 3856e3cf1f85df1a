/** An Authorization header split into scheme and credentials. */
export interface ParsedAuthorization {
  /** Lower-cased scheme (`basic`, `bearer`, …). */
  readonly scheme: string
  readonly credentials: string
}

/** Longest Authorization header accepted (bytes of the value). */
export const MAX_AUTHORIZATION_LENGTH = 8192

// RFC 9110 §11.4: credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are refused
const CONTROL = /[\x00-\x1f\x7f]/
const SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * Splits an Authorization header value, or returns a reason it is
 * malformed: too long, control characters, no credentials, bad scheme.
 */
export function parseAuthorization (value: string): ParsedAuthorization | string {
  if (value.length > MAX_AUTHORIZATION_LENGTH) return 'the Authorization header is too long'
  if (CONTROL.test(value)) return 'the Authorization header contains control characters'
  const trimmed = value.trim()
  const space = trimmed.indexOf(' ')
  if (space === -1) return 'the Authorization header has no credentials'
  const scheme = trimmed.slice(0, space)
  if (!SCHEME.test(scheme)) return 'the Authorization scheme is malformed'
  const credentials = trimmed.slice(space + 1).trim()
  if (credentials === '') return 'the Authorization header has no credentials'
  return { scheme: scheme.toLowerCase(), credentials }
}
