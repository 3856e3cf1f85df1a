import type { IncomingHttpHeaders } from 'node:http'
import { ifMatchMatches, ifNoneMatchMatches, opaqueTag } from './etag.js'
import { parseHttpDate } from './http-date.js'

/**
 * What the preconditions of a GET or HEAD make of a 200: send it (or a
 * range of it: If-Range is the range code's), 304, or 412 naming the header
 * that failed.
 */
export type Precondition = 'proceed' | 'not-modified' | 'If-Match' | 'If-Unmodified-Since'

// Last-Modified is sent with one-second precision; dates compare at that precision.
const seconds = (ms: number): number => Math.floor(ms / 1000)

/**
 * RFC 9110 §13.2.2, steps 1 to 4, for a GET or HEAD whose response would
 * be a 200 with the ETag `etag` (as sent, `W/` included) and Last-Modified
 * `lastModified` (ms, NaN when unknown):
 * 1. If-Match, when present: strong comparison, `*` matches; false → 412.
 * 2. Otherwise If-Unmodified-Since, when a valid HTTP-date and a
 *    Last-Modified is known: modified after it → 412.
 * 3. If-None-Match, when present: weak comparison, `*` matches; a match → 304.
 * 4. Otherwise If-Modified-Since, when a valid HTTP-date and a Last-Modified
 *    is known: not modified since → 304.
 * Dates that are not HTTP-dates are ignored (§13.1.3, §13.1.4).
 * D-CACHE-04, D-CACHE-10.
 */
export function evaluatePreconditions (headers: IncomingHttpHeaders, etag: string | undefined, lastModified: number): Precondition {
  const ifMatch = headers['if-match']
  if (ifMatch !== undefined) {
    if (!ifMatchMatches(ifMatch, etag)) return 'If-Match'
  } else {
    const ifUnmodifiedSince = headers['if-unmodified-since']
    if (ifUnmodifiedSince !== undefined && !Number.isNaN(lastModified)) {
      const since = parseHttpDate(ifUnmodifiedSince)
      if (!Number.isNaN(since) && seconds(lastModified) > seconds(since)) return 'If-Unmodified-Since'
    }
  }
  const ifNoneMatch = headers['if-none-match']
  if (ifNoneMatch !== undefined) {
    // The weak comparison (§8.8.3.2): opaqueTag drops `W/`.
    const opaque = etag === undefined ? undefined : opaqueTag(etag)
    return ifNoneMatchMatches(ifNoneMatch, opaque) ? 'not-modified' : 'proceed'
  }
  const ifModifiedSince = headers['if-modified-since']
  if (ifModifiedSince === undefined || Number.isNaN(lastModified)) return 'proceed'
  const since = parseHttpDate(ifModifiedSince)
  if (Number.isNaN(since)) return 'proceed'
  return seconds(lastModified) <= seconds(since) ? 'not-modified' : 'proceed'
}

/** Whether any header of RFC 9110 §13.1.1 to §13.1.4 is present (the common case: none). */
export function hasPreconditions (headers: IncomingHttpHeaders): boolean {
  return headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined ||
    headers['if-match'] !== undefined || headers['if-unmodified-since'] !== undefined
}
