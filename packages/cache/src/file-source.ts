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
 * Whether a range of `payload` can be served: a string or Buffer (its bytes
 * are the representation), or an `fs.ReadStream` of the whole file at
 * `path` (reopened at the range). Any other stream is sent whole.
 * D-CACHE-11.
 */
export function sliceable (payload: unknown, path: string): boolean {
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) return true
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
