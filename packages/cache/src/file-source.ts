import { ReadStream } from 'node:fs'
import type { FastifyRequest } from 'fastify'

/**
 * The file a response comes from: `request.scope.filePath` when the route
 * set it, else the path of an `fs.ReadStream` payload. A stream opened from
 * a file descriptor has no path and is not recognised.
 * D-CACHE-02.
 */
export function filePathOf (request: FastifyRequest, payload: unknown): string | undefined {
  const declared = request.scope?.filePath
  if (typeof declared === 'string' && declared !== '') return declared
  if (payload instanceof ReadStream && typeof payload.path === 'string') return payload.path
  return undefined
}

/**
 * Whether `payload` is an `fs.ReadStream` of the whole file at `path`: the
 * cache then sends the file from its own descriptor (D-CACHE-13). A stream
 * of part of the file, or of another file, is the route's and is sent as it is.
 */
export function isWholeFileStream (payload: unknown, path: string): payload is ReadStream {
  if (!(payload instanceof ReadStream) || payload.path !== path) return false
  // Set by fs.createReadStream's `start`/`end` options (untyped): a stream of part of the file is not the file.
  const { start, end } = payload as unknown as { start?: number, end?: number }
  return (start === undefined || start === 0) && end === Infinity
}

/** Releases a stream payload that will not be sent (its file descriptor included). */
export function discard (payload: unknown): void {
  if (payload !== null && typeof payload === 'object' && typeof (payload as { destroy?: unknown }).destroy === 'function') {
    (payload as { destroy: () => void }).destroy()
  }
}
