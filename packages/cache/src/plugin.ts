import { stat, type Stats } from 'node:fs'
import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { cacheControlValue } from './cache-control.js'
import { evaluatePreconditions, hasPreconditions } from './conditional.js'
import { contentEtagSetter } from './content-etag.js'
import { GATEHOUSE_CACHE_PRECONDITION_FAILED } from './errors.js'
import { fileEtag } from './etag.js'
import { discard, filePathOf, isWholeFileStream } from './file-source.js'
import { parseHttpDate } from './http-date.js'
import { OpenFile, openFile } from './open-file.js'
import { resolveCacheOptions, type CacheOptions } from './options.js'
import { sendRange } from './send-range.js'

// `request.scope.filePath` is declared by @fastify-gatehouse/core's RequestScope
// (the spec's `scope['_file_path']`); this package is what reads it.

type Done = (err: Error | null, payload?: unknown) => void

/** Turns the response into a 304: no body, the validators and Cache-Control kept. */
function answerNotModified (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done): void {
  reply.code(304)
  reply.removeHeader('content-length')
  // The body is not sent; a file stream would otherwise hold its descriptor.
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) discard(payload)
  // Fastify's HEAD handler (which runs after this hook) cannot take null and
  // would measure a body for Content-Length: an empty stream gives it nothing
  // to measure, so a HEAD 304 carries no length, as the GET 304 does (the
  // 200's length may be the compressed one, unknown here; RFC 9110 §8.6).
  done(null, request.method === 'HEAD' ? Readable.from([]) : null)
}

/**
 * Turns the response into a 412 (the errors component's shape and code).
 * The body would not be sent, and Cache-Control belongs to the
 * representation: a stored 412 must not answer later requests.
 * D-CACHE-10.
 */
function refuse (reply: FastifyReply, payload: unknown, header: 'If-Match' | 'If-Unmodified-Since', done: Done): void {
  discard(payload)
  reply.removeHeader('cache-control')
  const reason = header === 'If-Match'
    ? 'If-Match does not match the current representation'
    : 'If-Unmodified-Since: the representation was modified after that date'
  done(new GATEHOUSE_CACHE_PRECONDITION_FAILED(reason))
}

/**
 * Decides 412, 304, 206 or 200 from the validators the response ends up
 * with (RFC 9110 §13.2.2). `ranges`: a byte range of `payload` may be served.
 * D-CACHE-01: the decision uses the validators the response ends up with.
 */
function conclude (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done, ranges: boolean): void {
  const etagHeader = reply.getHeader('etag')
  const lastModifiedHeader = reply.getHeader('last-modified')
  if (etagHeader === undefined && lastModifiedHeader === undefined) {
    // Nothing to compare preconditions against (D-CACHE-01).
    done(null, payload)
    return
  }
  const etag = typeof etagHeader === 'string' ? etagHeader : undefined
  const modified = typeof lastModifiedHeader === 'string' ? parseHttpDate(lastModifiedHeader) : NaN
  const outcome = evaluatePreconditions(request.headers, etag, modified)
  if (outcome === 'not-modified') answerNotModified(request, reply, payload, done)
  else if (outcome !== 'proceed') refuse(reply, payload, outcome, done)
  // §13.2.2 step 5: If-Range, then the range (GET only, §14.2).
  else if (ranges && request.method === 'GET' && request.headers.range !== undefined) sendRange(request, reply, payload as string | Buffer | OpenFile, etag, modified, done)
  else done(null, payload)
}

/** Whether a range of `payload` can be cut: a string or Buffer (its bytes are the representation), or the open file. D-CACHE-11. */
function sliceable (payload: unknown): boolean {
  return typeof payload === 'string' || Buffer.isBuffer(payload) || payload instanceof OpenFile
}

/**
 * `done` for a response whose payload is `file` until it is decided: a
 * 200 sends the whole file from its descriptor, with the Content-Length
 * fstat gave (a GET whose read falls short then closes the connection;
 * a HEAD sends no body). Every other outcome passes through as it is.
 * D-CACHE-13.
 */
function sendingWholeFile (request: FastifyRequest, reply: FastifyReply, file: OpenFile, done: Done): Done {
  return function decided (err, payload) {
    if (err !== null || payload !== file) {
      done(err, payload)
      return
    }
    reply.header('content-length', file.size)
    if (file.size === 0) {
      file.destroy()
      done(null, Buffer.alloc(0))
      return
    }
    done(null, file.body(0, file.size - 1, request.method === 'GET' ? reply.raw : null))
  }
}

/**
 * The cache component's plugin: validators, preconditions (304, 412) and
 * byte ranges of file responses (206, 416), in one `onSend` hook.
 */
export const cache: FastifyPluginAsync<CacheOptions> = async function cache (app, options) {
  const opts = resolveCacheOptions(options)
  const publicCacheControl = cacheControlValue(opts, opts.public ? 'public' : 'private')
  const privateCacheControl = cacheControlValue(opts, 'private')
  const contentEtag = opts.etag === 'content'
    ? await contentEtagSetter(undefined, { algorithm: opts.etagAlgorithm, weak: opts.weakEtags })
    : null

  function fileValidators (request: FastifyRequest, reply: FastifyReply, payload: unknown, stats: Stats, done: Done): void {
    // D-CACHE-01: what the route set wins: these are defaults for file responses.
    if (!reply.hasHeader('etag')) reply.header('etag', fileEtag(stats.size, stats.mtimeMs, opts.weakEtags))
    if (!reply.hasHeader('last-modified')) reply.header('last-modified', stats.mtime.toUTCString())
    if (!reply.hasHeader('cache-control')) {
      // D-CACHE-03: a response to an authenticated caller must not land in a shared cache.
      reply.header('cache-control', request.scope?.auth == null ? publicCacheControl : privateCacheControl)
    }
    // D-CACHE-11: a route's own Accept-Ranges decides (`none` turns ranges off).
    let ranges = false
    if (opts.acceptRanges && sliceable(payload)) {
      const advertised = reply.getHeader('accept-ranges')
      if (advertised === undefined) reply.header('accept-ranges', 'bytes')
      ranges = advertised === undefined || advertised === 'bytes'
    }
    conclude(request, reply, payload, done, ranges)
  }

  app.addHook('onSend', function cacheValidators (request, reply, payload, done) {
    const method = request.method
    if ((method !== 'GET' && method !== 'HEAD') || reply.statusCode !== 200) {
      done(null, payload)
      return
    }
    const path = filePathOf(request, payload)
    if (path !== undefined && isWholeFileStream(payload, path)) {
      // D-CACHE-13: the validators and the bytes sent come from one descriptor.
      openFile(path, (file) => {
        // Not a readable file: the route's stream reports it.
        if (file === undefined) {
          done(null, payload)
          return
        }
        discard(payload)
        fileValidators(request, reply, file, file.stats, sendingWholeFile(request, reply, file, done))
      })
      return
    }
    if (path !== undefined) {
      // D-CACHE-06: asynchronous stat, not statSync (blocks) nor a stat cache (stale ETags).
      stat(path, (err, stats) => {
        // A missing file is the route's business (its stream reports it); no validators then.
        if (err !== null || !stats.isFile()) done(null, payload)
        else fileValidators(request, reply, payload, stats, done)
      })
      return
    }
    if (contentEtag !== null && (typeof payload === 'string' || Buffer.isBuffer(payload)) && !reply.hasHeader('etag')) {
      contentEtag(request, reply, payload)
    }
    // Without a precondition there is nothing to decide (the common case).
    if (!hasPreconditions(request.headers)) {
      done(null, payload)
      return
    }
    conclude(request, reply, payload, done, false)
  })
}
