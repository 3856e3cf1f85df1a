/**
 * A strong entity tag from a file's size and modification time (the
 * validator nginx and most static servers use): it changes whenever a write
 * changes either, without reading the file.
 * D-CACHE-02: strong, so compression can mark its variant weak and weak comparison still matches.
 */
export function fileEtag (size: number, mtimeMs: number, weak = false): string {
  return `${weak ? 'W/' : ''}"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`
}

/** The opaque-tag of a valid entity tag (quotes included, `W/` dropped), or undefined. */
export function opaqueTag (etag: string): string | undefined {
  const start = etag.startsWith('W/') ? 2 : 0
  if (etag.length < start + 2 || etag.charCodeAt(start) !== 0x22 || etag.charCodeAt(etag.length - 1) !== 0x22) return undefined
  for (let i = start + 1; i < etag.length - 1; i++) {
    if (!isEtagc(etag.charCodeAt(i))) return undefined
  }
  return start === 0 ? etag : etag.slice(start)
}

// etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3)
function isEtagc (c: number): boolean {
  return c === 0x21 || (c >= 0x23 && c <= 0x7e) || (c >= 0x80 && c <= 0xff)
}

/**
 * Whether an If-None-Match value matches `opaque` under the weak comparison
 * of RFC 9110 §8.8.3.2 (`W/"x"` matches `"x"`). `*` matches any current
 * representation. Malformed members are skipped: they match nothing.
 */
export function ifNoneMatchMatches (header: string, opaque: string | undefined): boolean {
  return listMatches(header, opaque, false)
}

/**
 * Whether an If-Match value matches the current ETag `etag` under the strong
 * comparison of RFC 9110 §8.8.3.2 (§13.1.1): both tags strong and their
 * opaque-tags identical. `*` matches any current representation; a weak
 * current tag matches no listed tag. Malformed members match nothing.
 */
export function ifMatchMatches (header: string, etag: string | undefined): boolean {
  const opaque = etag === undefined || etag.startsWith('W/') ? undefined : opaqueTag(etag)
  return listMatches(header, opaque, true)
}

// One scanner for both lists; `strong` refuses `W/` members.
function listMatches (header: string, opaque: string | undefined, strong: boolean): boolean {
  const n = header.length
  let i = 0
  while (i < n) {
    let c = header.charCodeAt(i)
    // OWS and empty list members
    if (c === 0x20 || c === 0x09 || c === 0x2c) { i++; continue }
    if (c === 0x2a) {
      const next = skipOws(header, i + 1)
      // "*" is only valid as the whole field value
      if (next === n && header.trim() === '*') return true
      i = skipMember(header, i)
      continue
    }
    let start = i
    const weak = c === 0x57 && header.charCodeAt(i + 1) === 0x2f
    if (weak) { start = i + 2; c = header.charCodeAt(start) }
    if (c !== 0x22) { i = skipMember(header, i); continue }
    let end = start + 1
    while (end < n && isEtagc(header.charCodeAt(end))) end++
    if (end >= n || header.charCodeAt(end) !== 0x22) { i = skipMember(header, i); continue }
    const after = skipOws(header, end + 1)
    if (after < n && header.charCodeAt(after) !== 0x2c) { i = skipMember(header, i); continue }
    if (opaque !== undefined && !(strong && weak) && end + 1 - start === opaque.length && header.startsWith(opaque, start)) return true
    i = after
  }
  return false
}

function skipOws (s: string, i: number): number {
  while (i < s.length && (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09)) i++
  return i
}

// A malformed member ends at the next comma (quoted commas are part of a tag,
// but a member that is malformed has no reliable quoting to honour).
function skipMember (s: string, i: number): number {
  const comma = s.indexOf(',', i)
  return comma === -1 ? s.length : comma + 1
}
