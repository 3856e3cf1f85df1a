// Types worth compressing: text, and the structured-text application types.
const EXACT = new Set([
  'application/json',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/xml',
  'image/svg+xml'
])
// Server-sent events must reach the client as each event is written; a
// compressor would hold them back until its buffer fills (D-COMPRESSION-02).
const NEVER = new Set(['text/event-stream'])

const MEMO_ENTRIES = 128
const memo = new Map<string, boolean>()

function decide (contentType: string): boolean {
  const semi = contentType.indexOf(';')
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase()
  if (NEVER.has(type)) return false
  if (type.startsWith('text/') || EXACT.has(type)) return true
  // The structured-syntax suffixes of RFC 6839 (application/problem+json, …).
  return type.endsWith('+json') || type.endsWith('+xml')
}

/** Whether a Content-Type header value names a compressible type. No type: not compressible. */
export function isCompressible (contentType: unknown): boolean {
  if (typeof contentType !== 'string') return false
  let answer = memo.get(contentType)
  if (answer === undefined) {
    answer = decide(contentType)
    if (contentType.length <= 128) {
      if (memo.size >= MEMO_ENTRIES) memo.clear()
      memo.set(contentType, answer)
    }
  }
  return answer
}
