import type { FastifyReply, FastifyRequest } from 'fastify'
import { GATEHOUSE_CACHE_RANGE_NOT_SATISFIABLE } from './errors.js'
import { discard } from './file-source.js'
import { OpenFile } from './open-file.js'
import { ifRangeHolds, parseRange, UNSATISFIABLE } from './range.js'

type Done = (err: Error | null, payload?: unknown) => void

/**
 * Answers a GET with a `Range` whose preconditions held: the whole 200 when
 * `If-Range` fails or the range is to be ignored, a 206 with the one range
 * (`Content-Range`, its `Content-Length`), or a 416 when no byte of it
 * exists. A string or Buffer body is cut itself (its bytes are the
 * representation, whatever the file holds); an open file is read over the
 * range only, from the descriptor its validators came from (a short read
 * closes the connection).
 * D-CACHE-11, D-CACHE-13.
 */
export function sendRange (request: FastifyRequest, reply: FastifyReply, payload: string | Buffer | OpenFile,
  etag: string | undefined, lastModified: number, done: Done): void {
  const ifRange = request.headers['if-range']
  // §13.1.5: a false If-Range means "send me all of it" (200), never a 412.
  if (ifRange !== undefined && (typeof ifRange !== 'string' || !ifRangeHolds(ifRange, etag, lastModified, Date.now()))) {
    done(null, payload)
    return
  }
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload
  const length = body instanceof OpenFile ? body.size : body.length
  const range = parseRange(request.headers.range!, length)
  if (range === undefined) {
    done(null, payload)
    return
  }
  if (range === UNSATISFIABLE) {
    discard(payload)
    // §15.5.17: the current length, so the client can ask again; not stored as the representation.
    reply.removeHeader('cache-control')
    reply.header('content-range', `bytes */${length}`)
    done(new GATEHOUSE_CACHE_RANGE_NOT_SATISFIABLE(length))
    return
  }
  const { start, end } = range
  reply.code(206)
  reply.header('content-range', `bytes ${start}-${end}/${length}`)
  reply.header('content-length', end - start + 1)
  if (body instanceof OpenFile) done(null, body.body(start, end, reply.raw))
  else done(null, body.subarray(start, end + 1))
}
