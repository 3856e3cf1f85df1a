import zlib from 'node:zlib'
import type { Readable, Transform, TransformCallback } from 'node:stream'
import type { preParsingHookHandler } from 'fastify'
import { bodyTooLarge, encodedBodyTooLarge, invalidBody, unsupportedEncoding } from './errors.js'
import type { RequestEncoding } from './options.js'
import type { DecompressionSettings } from './settings.js'

/** What a decoder adds to zlib's streams. */
interface Bounded {
  /** The encoded bytes received: Fastify compares them with Content-Length. */
  receivedEncodedLength: number
}

type Decoder = Transform & Bounded

type ZlibClass = new (options?: zlib.ZlibOptions & zlib.BrotliOptions) => Transform

/**
 * A zlib decoder that counts what it takes in (for Fastify's Content-Length
 * check) and what it gives out, and is destroyed with a 413 by the first
 * output chunk that passes `limit`. zlib inflates a whole input chunk
 * before it listens to back pressure, and a few bytes of Brotli make
 * megabytes, so the count sits in `push` itself: every chunk zlib makes
 * goes through it, read or not, and once destroyed zlib makes no more.
 * Memory stays within `limit` plus one chunk (16 KiB) whatever the ratio.
 * D-COMPRESSION-12.
 *
 * The encoded bytes taken in are bounded too, by `encodedLimit`: a body
 * that decodes to nothing (empty deflate blocks, empty gzip members) never
 * reaches the output count, and Fastify compares the encoded length with
 * `bodyLimit` only when output arrives. The chunk that passes the limit
 * is refused with the same 413 before zlib sees it. D-COMPRESSION-13.
 */
function bounded (Base: ZlibClass, coding: string): new (limit: number, encodedLimit: number) => Decoder {
  return class BoundedDecoder extends Base implements Bounded {
    receivedEncodedLength = 0
    private produced = 0
    private readonly limit: number
    private readonly encodedLimit: number

    constructor (limit: number, encodedLimit: number) {
      super()
      this.limit = limit
      this.encodedLimit = encodedLimit
    }

    override _transform (chunk: Buffer, encoding: BufferEncoding, callback: TransformCallback): void {
      this.receivedEncodedLength += chunk.length
      if (this.receivedEncodedLength > this.encodedLimit) {
        callback(encodedBodyTooLarge(this.encodedLimit))
        return
      }
      super._transform(chunk, encoding, callback)
    }

    override push (chunk: unknown, encoding?: BufferEncoding): boolean {
      if (chunk !== null && !this.destroyed) {
        this.produced += (chunk as Buffer).length
        if (this.produced > this.limit) {
          this.destroy(bodyTooLarge(this.limit))
          return false
        }
      }
      return super.push(chunk, encoding)
    }

    override _destroy (err: Error | null, callback: (error?: Error | null) => void): void {
      // zlib's own errors (a corrupt stream, a truncated one) become a 400
      // with our code; ours and the request's pass as they are.
      const zlibError = err !== null && typeof (err as { errno?: unknown }).errno === 'number' && !('statusCode' in err)
      super._destroy(zlibError ? invalidBody(coding) : err, callback)
    }
  }
}

const DECODERS: Record<RequestEncoding, new (limit: number, encodedLimit: number) => Decoder> = {
  gzip: bounded(zlib.Gunzip as unknown as ZlibClass, 'gzip'),
  deflate: bounded(zlib.Inflate as unknown as ZlibClass, 'deflate'),
  br: bounded(zlib.BrotliDecompress as unknown as ZlibClass, 'br')
}

function ignore (): void {}

/**
 * Pipes `raw` into a decoder of `coding` and returns the decoder: at most
 * `limit` bytes decoded, `encodedLimit` bytes taken in. `raw` (the request)
 * is never destroyed by the decoder's end: the 413 or 400 must still reach
 * the client, and Fastify closes the connection after it; once the decoder
 * is destroyed, `raw` is unpiped and no more of the upload is read.
 */
export function decodeBody (raw: Readable, coding: RequestEncoding, limit: number, encodedLimit: number): Decoder {
  const decoder = new DECODERS[coding](limit, encodedLimit)
  // Nobody may read the body (a 404, a refused media type): its error must
  // not go unheard and crash the process. Fastify adds its own listener.
  decoder.on('error', ignore)
  raw.on('error', (err) => decoder.destroy(err))
  raw.on('aborted', () => decoder.destroy(new Error('the request was aborted')))
  raw.pipe(decoder)
  return decoder
}

// Methods whose body Fastify never reads.
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE'])

/** `x-gzip` is gzip (RFC 9110 §8.4.1.3); codings compare case-insensitively. */
function codingOf (header: string): string {
  const coding = header.trim().toLowerCase()
  return coding === 'x-gzip' ? 'gzip' : coding
}

/**
 * The `preParsing` hook that decodes a request body sent with a
 * Content-Encoding the route accepts, before the body parser reads it.
 * `settingsOf` gives the route's settings and bodyLimit (read only when a
 * Content-Encoding is present). No header, or `identity`: the body is
 * passed on as it is. A coding not accepted, or a list of several: 415.
 * The request's headers are left as sent: Fastify checks Content-Length
 * against the encoded bytes (`receivedEncodedLength`).
 */
export function decompressionHook (settingsOf: (request: Parameters<preParsingHookHandler>[0]) => { settings: DecompressionSettings | null, bodyLimit: number }): preParsingHookHandler {
  return function decompressRequestBody (request, _reply, payload, done) {
    const header = request.headers['content-encoding']
    // No route, no body worth decoding: a 404 is answered whatever it holds.
    if (header === undefined || BODYLESS.has(request.method) || request.is404) {
      done(null, payload)
      return
    }
    const { settings, bodyLimit } = settingsOf(request)
    if (settings === null) {
      done(null, payload)
      return
    }
    const coding = codingOf(header)
    if (coding === 'identity' || coding === '') {
      done(null, payload)
      return
    }
    if (!settings.encodings.has(coding as RequestEncoding)) {
      done(unsupportedEncoding(header, settings.accepted))
      return
    }
    // Decoded: `maxSize`, else bodyLimit. Encoded: the larger of the two,
    // so a route whose `maxSize` passes its bodyLimit (a stream parser)
    // still takes bodies that do not compress. D-COMPRESSION-13.
    const limit = settings.maxSize ?? bodyLimit
    done(null, decodeBody(payload, coding as RequestEncoding, limit, Math.max(limit, bodyLimit)))
  }
}
