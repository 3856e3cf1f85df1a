import { stat, type Stats } from 'node:fs'
import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { cacheControlValue } from './cache-control.js'
import { notModified } from './conditional.js'
import { contentEtagSetter } from './content-etag.js'
import { fileEtag, opaqueTag } from './etag.js'
import { discard, filePathOf } from './file-source.js'
import { parseHttpDate } from './http-date.js'
import { resolveCacheOptions, type CacheOptions } from './options.js'

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
 * Decides 304 or 200 from the validators the response ends up with.
 * D-CACHE-01: the decision uses the validators the response ends up with.
 */
function conclude (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done): void {
  const etag = reply.getHeader('etag')
  const lastModified = reply.getHeader('last-modified')
  const opaque = typeof etag === 'string' ? opaqueTag(etag) : undefined
  const modified = typeof lastModified === 'string' ? parseHttpDate(lastModified) : NaN
  if ((etag !== undefined || lastModified !== undefined) && notModified(request.headers, opaque, modified)) {
    answerNotModified(request, reply, payload, done)
    return
  }
  done(null, payload)
}

/**
 * The cache component's plugin: validators and the 304 decision, in one
 * `onSend` hook.
 */
export const cache: FastifyPluginAsync<CacheOptions> = async function cache (app, options) {
  const opts = resolveCacheOptions(options)
  const publicCacheControl = cacheControlValue(opts, opts.public ? 'public' : 'private')
  const privateCacheControl = cacheControlValue(opts, 'private')
  const contentEtag = opts.etag === 'content' ? await contentEtagSetter() : null

  function fileValidators (request: FastifyRequest, reply: FastifyReply, payload: unknown, stats: Stats, done: Done): void {
    // D-CACHE-01: what the route set wins: these are defaults for file responses.
    if (!reply.hasHeader('etag')) reply.header('etag', fileEtag(stats.size, stats.mtimeMs))
    if (!reply.hasHeader('last-modified')) reply.header('last-modified', stats.mtime.toUTCString())
    if (!reply.hasHeader('cache-control')) {
      // D-CACHE-03: a response to an authenticated caller must not land in a shared cache.
      reply.header('cache-control', request.scope?.auth == null ? publicCacheControl : privateCacheControl)
    }
    conclude(request, reply, payload, done)
  }

  app.addHook('onSend', function cacheValidators (request, reply, payload, done) {
    const method = request.method
    if ((method !== 'GET' && method !== 'HEAD') || reply.statusCode !== 200) {
      done(null, payload)
      return
    }
    const path = filePathOf(request, payload)
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
    if (request.headers['if-none-match'] === undefined && request.headers['if-modified-since'] === undefined) {
      done(null, payload)
      return
    }
    conclude(request, reply, payload, done)
  })
}
