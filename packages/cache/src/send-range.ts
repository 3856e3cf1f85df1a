import { createReadStream } from 'node:fs'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { GATEHOUSE_CACHE_RANGE_NOT_SATISFIABLE } from './errors.js'
import { discard } from './file-source.js'
import { ifRangeHolds, parseRange, UNSATISFIABLE } from './range.js'

/** The file a ranged response is cut from: its path and stat'ed size. */
export interface RangeSource {
  readonly path: string
  readonly size: number
}

type Done = (err: Error | null, payload?: unknown) => void

/**
 * Answers a GET with a `Range` whose preconditions held: the whole 200 when
 * `If-Range` fails or the range is to be ignored, a 206 with the one range
 * (`Content-Range`, its `Content-Length`), or a 416 when no byte of it
 * exists. A string or Buffer body is cut itself (its bytes are the
 * representation, whatever the file holds); a file stream is replaced by one
 * over the range, so no unrequested byte is read.
 * D-CACHE-11.
 */
export function sendRange (request: FastifyRequest, reply: FastifyReply, payload: unknown, file: RangeSource,
  etag: string | undefined, lastModified: number, done: Done): void {
  const ifRange = request.headers['if-range']
  // §13.1.5: a false If-Range means "send me all of it" (200), never a 412.
  if (ifRange !== undefined && (typeof ifRange !== 'string' || !ifRangeHolds(ifRange, etag, lastModified, Date.now()))) {
    done(null, payload)
    return
  }
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload
  const length = Buffer.isBuffer(body) ? body.length : file.size
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
  if (Buffer.isBuffer(body)) {
    done(null, body.subarray(start, end + 1))
    return
  }
  discard(payload)
  done(null, createReadStream(file.path, { start, end }))
}
