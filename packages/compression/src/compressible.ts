import { LruMap } from '@fastify-gatehouse/core'

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

// Content-Type is usually the application's, but a route may echo a value
// the caller chose: the memory of answers is bounded and keeps short values
// only. Hits are read with `peek`, as in accept-encoding.ts: the oldest
// answer goes first. D-COMPRESSION-07.
export const MEMO_ENTRIES = 128
export const MEMO_VALUE_LENGTH = 128
/** The answers remembered, by Content-Type value. Exported for tests. */
export const memo = new LruMap<string, boolean>(MEMO_ENTRIES)

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
  let answer = memo.peek(contentType)
  if (answer === undefined) {
    answer = decide(contentType)
    if (contentType.length <= MEMO_VALUE_LENGTH) memo.set(contentType, answer)
  }
  return answer
}
