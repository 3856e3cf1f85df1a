import type { FastifyReply } from 'fastify'

// RFC 9110 syntax that several components check. One copy, so a fix to a
// pattern reaches every place that parses the same grammar. D-CORE-01.

/** RFC 9110 §5.6.2 `token` characters, as a regular-expression class body. */
const TCHAR = "!#$%&'*+.^_`|~0-9A-Za-z-"

/** A whole RFC 9110 `token` (header names, auth schemes, methods, codings). */
export const TOKEN = new RegExp(`^[${TCHAR}]+$`)

/** {@link TOKEN} as a JSON-schema `pattern` string (cookie names, header lists in options). */
export const TOKEN_PATTERN = `^[${TCHAR}]+$`

/**
 * A comma-separated list of tokens with optional whitespace around the
 * commas (RFC 9110 §5.6.1), e.g. `Access-Control-Request-Headers`.
 */
export const TOKEN_LIST = new RegExp(`^[${TCHAR}]+(?:[ \\t]*,[ \\t]*[${TCHAR}]+)*$`)

/**
 * Any C0 control character or DEL. Header values, stored identities and
 * redirect targets refuse these (CR/LF split headers; NUL truncates in C code).
 */
// eslint-disable-next-line no-control-regex -- the control characters are the point
export const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/

/** "No control character anywhere" as a JSON-schema `pattern` string. */
export const NO_CONTROL_CHARACTERS_PATTERN = '^[^\\x00-\\x1f\\x7f]*$'

/** Whether `value` is an RFC 9110 token. */
export function isToken (value: string): boolean {
  return TOKEN.test(value)
}

/** Whether `value` holds a control character (C0 or DEL). */
export function hasControlCharacter (value: string): boolean {
  return CONTROL_CHARACTER.test(value)
}

/** The path of a request target: everything before the first `?`. */
export function pathWithoutQuery (url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/**
 * The `Vary` value once `field` is added to `existing`, or undefined when it
 * needs no change (already listed, or `*`). Field names compare
 * case-insensitively (RFC 9110 §12.5.5); values given as a list are joined.
 */
export function mergeVary (existing: unknown, field: string): string | undefined {
  if (existing === undefined || existing === null || existing === '') return field
  const value = Array.isArray(existing) ? existing.join(', ') : String(existing)
  const wanted = field.toLowerCase()
  for (const name of value.split(',')) {
    const token = name.trim().toLowerCase()
    if (token === wanted || token === '*') return undefined
  }
  return `${value}, ${field}`
}

/** Adds `field` to the reply's `Vary` header unless it is listed already (or `Vary` is `*`). */
export function addVary (reply: FastifyReply, field: string): void {
  const merged = mergeVary(reply.getHeader('vary'), field)
  if (merged !== undefined) reply.header('vary', merged)
}
