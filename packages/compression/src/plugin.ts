import { pipeline, type Stream } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, preParsingHookHandler, RouteOptions } from 'fastify'
import { addVary } from '@fastify-gatehouse/core'
import { isCompressible } from './compressible.js'
import { decompressionHook } from './decompress.js'
import { fromLegacyStream, isModernReadable } from './legacy-stream.js'
import { resolveCompressionOptions, type CompressionOptions, type Encoding } from './options.js'
import { isGzip, peekFirstChunk } from './precompressed.js'
import { routeSettings } from './route-config.js'
import { compileSettings, type ResponseSettings } from './settings.js'

// Bodies up to this size are compressed on the event loop (cheapest: no
// thread hop, no stream); larger ones on the thread pool, so that one big
// response does not stall every other request.
// D-COMPRESSION-01: measured at about the floor.
const SYNC_LIMIT = 64 * 1024

// The bytes differ from the identity representation's: a strong validator
// would claim byte equality (RFC 9110 §8.8.1).
function weaken (reply: FastifyReply): void {
  const etag = reply.getHeader('etag')
  if (typeof etag === 'string' && etag.charCodeAt(0) === 0x22) reply.header('etag', `W/${etag}`)
}

function markEncoded (reply: FastifyReply, coding: Encoding): void {
  reply.header('content-encoding', coding)
  weaken(reply)
  // D-COMPRESSION-16: a range is always of the identity bytes, never of these.
  reply.removeHeader('accept-ranges')
}

type Done = (err: Error | null, payload?: unknown) => void

/**
 * The coding for this request under `settings`, or null for identity: the
 * client's Accept-Encoding, unless it opted out with X-No-Compression
 * where that is honoured (D-COMPRESSION-10).
 */
function chooseCoding (request: FastifyRequest, settings: ResponseSettings): Encoding | null {
  if (settings.noCompressionHeader && request.headers['x-no-compression'] !== undefined) return null
  return settings.negotiate(request.headers['accept-encoding'])
}

/**
 * The coding for a body worth encoding, or null for identity. From here the
 * response depends on Accept-Encoding, whichever coding is chosen, so it
 * varies on it either way (D-COMPRESSION-06).
 */
function negotiate (request: FastifyRequest, reply: FastifyReply, settings: ResponseSettings): Encoding | null {
  addVary(reply, 'Accept-Encoding')
  return chooseCoding(request, settings)
}

/**
 * The compression component's plugin: negotiation and encoding in one
 * `onSend` hook, per-route settings compiled in `onRoute`, and (when asked
 * for) request bodies decoded in `preParsing`.
 */
export const compression: FastifyPluginAsync<CompressionOptions> = async function compression (app, options) {
  const opts = resolveCompressionOptions(options)
  const plugin = compileSettings(opts)
  const { onRoute, settingsOf } = routeSettings(opts, plugin, app.log)

  function responseSettings (request: FastifyRequest): ResponseSettings | null {
    return settingsOf(request.routeOptions.config, request).response
  }

  // Request bodies. With the plugin's decoding on, one instance-level hook
  // serves every route (a route's `false` or its own settings are read when
  // a body is encoded); with it off, only the routes that turn it on get
  // the hook, so the others pay nothing.
  const decompress = decompressionHook((request) => {
    const { config, bodyLimit } = request.routeOptions
    return { settings: settingsOf(config, request).request, bodyLimit }
  })
  if (plugin.request !== null) app.addHook('preParsing', decompress)
  app.addHook('onRoute', function compileRouteCompression (route: RouteOptions) {
    const settings = onRoute(route)
    if (settings === undefined || plugin.request !== null || settings.request === null) return
    const existing = route.preParsing === undefined ? [] : Array.isArray(route.preParsing) ? route.preParsing : [route.preParsing]
    // HEAD routes are copied from their GET route, hooks included.
    if (existing.includes(decompress)) return
    // First among the route's own: they may read the body.
    route.preParsing = [decompress, ...existing] as preParsingHookHandler[]
  })

  function sendStream (request: FastifyRequest, reply: FastifyReply, stream: Stream, settings: ResponseSettings, done: Done): void {
    const declared = reply.getHeader('content-length')
    // D-COMPRESSION-02: a stream's size is known only from a declared Content-Length.
    if (declared !== undefined && Number(declared) < settings.minimumSize) {
      done(null, stream)
      return
    }
    // D-COMPRESSION-15: an old-style stream cannot be peeked; a Readable wrapping it can.
    const payload = isModernReadable(stream) ? stream : fromLegacyStream(stream)
    // The first chunk says whether the route streams gzip bytes of its own
    // (D-COMPRESSION-11); none (an
    // empty stream, or one failing first) leaves nothing to encode.
    peekFirstChunk(payload, (first) => {
      const coding = first === null || isGzip(first) ? null : negotiate(request, reply, settings)
      if (coding === null) {
        done(null, payload)
        return
      }
      reply.removeHeader('content-length')
      markEncoded(reply, coding)
      // A HEAD answer has the GET's headers and no body: Fastify reads the
      // stream and discards it, so encoding it would be wasted work (D-COMPRESSION-03).
      if (request.method === 'HEAD') {
        done(null, payload)
        return
      }
      const encoded = settings.encoders.get(coding)!.stream()
      pipeline(payload, encoded, (err) => {
        // A client that goes away mid-stream is not an error of ours.
        if (err != null && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') {
          request.log.warn({ err }, 'compression: the response stream failed')
        }
      })
      done(null, encoded)
    })
  }

  // A 304 has no body to encode, but it carries the headers the 200 would
  // have (RFC 9110 §15.4.5): a cache that refreshes its stored, compressed
  // copy from it must not be told the ETag is strong or that nothing varies.
  // The body's size is unknown here, so this follows the type and the client.
  // D-COMPRESSION-04 and D-COMPRESSION-06.
  function revalidated (request: FastifyRequest, reply: FastifyReply): void {
    if (!isCompressible(reply.getHeader('content-type')) || reply.hasHeader('content-encoding')) return
    const settings = responseSettings(request)
    if (settings === null) return
    const coding = chooseCoding(request, settings)
    if (coding === null) return
    addVary(reply, 'Accept-Encoding')
    weaken(reply)
  }

  // A 206 is a range of the identity body and is never encoded, but it
  // carries the Vary its 200 would (RFC 9110 §15.3.7): a cache must not
  // serve it to a client whose Accept-Encoding got the encoded 200. Like
  // the 200, it does not depend on this client's Accept-Encoding. D-COMPRESSION-14.
  function ranged (request: FastifyRequest, reply: FastifyReply): void {
    if (!isCompressible(reply.getHeader('content-type')) || reply.hasHeader('content-encoding')) return
    if (responseSettings(request) === null) return
    addVary(reply, 'Accept-Encoding')
  }

  // HEAD goes the GET's way (RFC 9110 §9.3.2: the same header fields): a
  // buffered body is encoded so that Content-Length is the one GET sends,
  // and Fastify's HEAD handling then drops the body (D-COMPRESSION-03).
  app.addHook('onSend', function compress (request, reply, payload, done) {
    const status = reply.statusCode
    if (status === 304) {
      revalidated(request, reply)
      done(null, payload)
      return
    }
    if (status === 206) {
      ranged(request, reply)
      done(null, payload)
      return
    }
    if (payload == null) {
      done(null, payload)
      return
    }
    if (status < 200 || status === 204 ||
      // D-COMPRESSION-06: a route's `Content-Encoding: identity` opts out (the BREACH escape hatch).
      reply.hasHeader('content-encoding') || reply.hasHeader('content-range') ||
      !isCompressible(reply.getHeader('content-type'))) {
      done(null, payload)
      return
    }
    const settings = responseSettings(request)
    if (settings === null) {
      done(null, payload)
      return
    }
    const text = typeof payload === 'string'
    if (!text && !Buffer.isBuffer(payload)) {
      if (typeof (payload as Stream).pipe === 'function') sendStream(request, reply, payload as Stream, settings, done)
      // Web streams and other payloads pass through as they are.
      else done(null, payload)
      return
    }
    const body = payload as string | Buffer
    const minimumSize = settings.minimumSize
    // A string's byte length is at least its length; count bytes only when that is not enough.
    const tooSmall = body.length < minimumSize && (!text || Buffer.byteLength(body) < minimumSize)
    const coding = tooSmall || (!text && isGzip(body)) ? null : negotiate(request, reply, settings)
    if (coding === null) {
      done(null, payload)
      return
    }
    const encoder = settings.encoders.get(coding)!
    const finish = (encoded: Buffer): void => {
      // Only a smaller body is worth the client's decoding work.
      if (encoded.length >= body.length && (!text || encoded.length >= Buffer.byteLength(body))) {
        done(null, payload)
        return
      }
      markEncoded(reply, coding)
      // A length the route set is the identity body's. Fastify sets it anew
      // from the Buffer sent for GET, but keeps a set one for a HEAD route
      // of the user's own; remove it so both count the encoded bytes (D-COMPRESSION-03).
      reply.removeHeader('content-length')
      done(null, encoded)
    }
    if (body.length <= SYNC_LIMIT) {
      finish(encoder.sync(body))
    } else {
      encoder.async(body, (err, encoded) => {
        if (err !== null) done(err)
        else finish(encoded)
      })
    }
  })
}
