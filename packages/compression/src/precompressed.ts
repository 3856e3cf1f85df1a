import type { Readable } from 'node:stream'

/**
 * Whether `bytes` start like a gzip member (RFC 1952 §2.3.1: ID1 0x1f,
 * ID2 0x8b, CM 8): a body the route compressed itself without saying so.
 * Only gzip is recognised: the zlib format's two header bytes are a
 * checksum that ordinary text can satisfy (`x^` is one).
 * D-COMPRESSION-11.
 */
export function isGzip (bytes: unknown): boolean {
  if (!(bytes instanceof Uint8Array)) return false
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 0x08
}

/**
 * Calls `callback` with the stream's first chunk, put back so that whoever
 * reads the stream next gets every byte: `null` when it ends empty or
 * fails before a chunk (the failure is left for its reader to see).
 */
export function peekFirstChunk (stream: Readable, callback: (chunk: unknown) => void): void {
  // Already over (ended, failed or destroyed before onSend): no event will come again.
  // `errored` is undefined on readables that predate it (readable-stream 2).
  if (stream.destroyed || stream.readableEnded || (stream.errored ?? null) !== null) {
    callback(null)
    return
  }
  function cleanup (): void {
    stream.removeListener('readable', onReadable)
    stream.removeListener('end', onEnd)
    stream.removeListener('error', onEnd)
    stream.removeListener('close', onEnd)
  }
  function onReadable (): void {
    const chunk: unknown = stream.read()
    if (chunk === null) return
    cleanup()
    stream.unshift(chunk)
    callback(chunk)
  }
  function onEnd (): void {
    cleanup()
    callback(null)
  }
  stream.on('readable', onReadable)
  stream.once('end', onEnd)
  stream.once('error', onEnd)
  stream.once('close', onEnd)
}
