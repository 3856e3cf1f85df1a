import { opaqueTag } from './etag.js'
import { parseHttpDate } from './http-date.js'

/** One satisfiable byte range, both ends inclusive (RFC 9110 §14.1.2). */
export interface ByteRange {
  readonly start: number
  readonly end: number
}

/** No byte of the representation is in the requested range (416). */
export const UNSATISFIABLE = 'unsatisfiable'

// bytes=<first>-[<last>] or bytes=-<suffix>; the unit is case-insensitive (§14.1).
const SINGLE_RANGE = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i

/**
 * The one byte range a `Range` value asks of a `length`-byte representation
 * (RFC 9110 §14.1.2), `'unsatisfiable'` when none of its bytes exist (416),
 * or undefined when the value is to be ignored and the whole representation
 * sent: malformed (§14.2: a server MAY ignore Range), another unit, or more
 * than one range.
 * D-CACHE-11: one range only, no multipart/byteranges.
 */
export function parseRange (value: string, length: number): ByteRange | typeof UNSATISFIABLE | undefined {
  const m = SINGLE_RANGE.exec(value)
  if (m === null) return undefined
  const first = m[1]!
  const last = m[2]!
  if (first === '') {
    // A suffix: the last <suffix> bytes. A suffix of 0, or any suffix of an empty representation, selects nothing.
    if (last === '') return undefined
    const suffix = digits(last)
    if (suffix === 0 || length === 0) return UNSATISFIABLE
    return { start: Math.max(0, length - suffix), end: length - 1 }
  }
  const start = digits(first)
  const end = last === '' ? Infinity : digits(last)
  // last < first is an invalid range-spec, not an unsatisfiable one (§14.1.1).
  if (end < start) return undefined
  if (start >= length) return UNSATISFIABLE
  return { start, end: Math.min(end, length - 1) }
}

// Digits beyond what a double holds exactly are larger than any file: Infinity compares right.
function digits (s: string): number {
  const n = Number(s)
  return Number.isSafeInteger(n) ? n : Infinity
}

/**
 * Whether an `If-Range` value lets a range be sent (RFC 9110 §13.1.5): an
 * entity-tag must equal the current ETag under the strong comparison (a weak
 * tag on either side never matches); an HTTP-date must equal Last-Modified
 * (at the one-second precision it is sent with) and Last-Modified must be a
 * strong validator, i.e. at least one second before `now` (§8.8.2.2). Any
 * other value is false: the whole representation is sent.
 * D-CACHE-12.
 */
export function ifRangeHolds (value: string, etag: string | undefined, lastModified: number, now: number): boolean {
  const c = value.charCodeAt(0)
  if (c === 0x22 || (c === 0x57 && value.charCodeAt(1) === 0x2f)) {
    if (c !== 0x22 || etag === undefined || etag.startsWith('W/')) return false
    const requested = opaqueTag(value)
    return requested !== undefined && requested === opaqueTag(etag)
  }
  const date = parseHttpDate(value)
  if (Number.isNaN(date) || Number.isNaN(lastModified)) return false
  const modified = Math.floor(lastModified / 1000)
  return modified === Math.floor(date / 1000) && modified < Math.floor(now / 1000)
}
