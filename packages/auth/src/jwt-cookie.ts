import type { FastifyInstance, FastifyRequest } from 'fastify'

interface CookieParsing {
  cookies?: Record<string, string | undefined>
}

interface CookieParser {
  parseCookie?: (header: string) => Record<string, string | undefined>
}

/**
 * The value of the cookie `name` in a `Cookie` header, read as
 * @fastify/cookie's parser (the `cookie` package) reads it: pairs split at
 * `;`, name and value trimmed of spaces and tabs, the first pair of a name
 * wins, a value with `%` URL-decoded (kept as sent when that fails). So the
 * token auth reads is the cookie csrf sees (D-CSRF-07).
 */
export function cookieValue (header: string, name: string): string | undefined {
  let index = 0
  const length = header.length
  while (index < length) {
    let end = header.indexOf(';', index)
    if (end === -1) end = length
    const eq = header.indexOf('=', index)
    if (eq === -1) return undefined
    if (eq > end) {
      index = end + 1
      continue
    }
    if (trimmed(header, index, eq) === name) {
      const value = trimmed(header, eq + 1, end)
      if (!value.includes('%')) return value
      try {
        return decodeURIComponent(value)
      } catch {
        return value
      }
    }
    index = end + 1
  }
  return undefined
}

function trimmed (s: string, start: number, end: number): string {
  while (start < end && (s.charCodeAt(start) === 0x20 || s.charCodeAt(start) === 0x09)) start++
  while (end > start && (s.charCodeAt(end - 1) === 0x20 || s.charCodeAt(end - 1) === 0x09)) end--
  return s.slice(start, end)
}

/**
 * The JWT in the cookie `name`, or undefined when the request has none (or
 * an empty one): `request.cookies` when @fastify/cookie parsed them, its
 * `app.parseCookie` when registered (csrf registers it), else our own
 * reading of the header, which follows the same rules.
 */
export function cookieToken (app: FastifyInstance, request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie
  if (header === undefined) return undefined
  const parsed = (request as unknown as CookieParsing).cookies
  const parser = (app as unknown as CookieParser).parseCookie
  const value = parsed !== undefined ? parsed[name] : typeof parser === 'function' ? parser(header)[name] : cookieValue(header, name)
  return value === undefined || value === '' ? undefined : value
}
