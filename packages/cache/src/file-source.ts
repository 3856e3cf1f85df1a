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

/** Releases a stream payload that will not be sent (its file descriptor included). */
export function discard (payload: unknown): void {
  if (payload !== null && typeof payload === 'object' && typeof (payload as { destroy?: unknown }).destroy === 'function') {
    (payload as { destroy: () => void }).destroy()
  }
}
