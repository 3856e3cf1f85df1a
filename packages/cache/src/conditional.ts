import type { IncomingHttpHeaders } from 'node:http'
import { ifNoneMatchMatches } from './etag.js'
import { parseHttpDate } from './http-date.js'

/**
 * Whether a GET or HEAD request's preconditions make the response a 304
 * (RFC 9110 §13.2.2, steps 3 and 4): If-None-Match decides when present
 * (weak comparison, `*` matches); otherwise If-Modified-Since, when it is a
 * valid HTTP-date and a Last-Modified is known. `opaque` is the current
 * ETag's opaque-tag; `lastModified` is in ms (NaN when unknown).
 * D-CACHE-04: only RFC 9110 §13.2.2 steps 3 and 4; If-Match, If-Unmodified-Since and If-Range are not evaluated.
 */
export function notModified (headers: IncomingHttpHeaders, opaque: string | undefined, lastModified: number): boolean {
  const ifNoneMatch = headers['if-none-match']
  if (ifNoneMatch !== undefined) return ifNoneMatchMatches(ifNoneMatch, opaque)
  const ifModifiedSince = headers['if-modified-since']
  if (ifModifiedSince === undefined || Number.isNaN(lastModified)) return false
  const since = parseHttpDate(ifModifiedSince)
  if (Number.isNaN(since)) return false
  // Last-Modified is sent with one-second precision; compare at that precision.
  return Math.floor(lastModified / 1000) <= Math.floor(since / 1000)
}
