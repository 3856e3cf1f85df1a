import zlib from 'node:zlib'
import type { Transform } from 'node:stream'
import type { Encoding } from './options.js'

/** One content coding, its options bound once. */
export interface Encoder {
  readonly name: Encoding
  /** Encodes a whole body on the calling thread. */
  sync: (body: string | Buffer) => Buffer
  /** Encodes a whole body on libuv's thread pool. */
  async: (body: string | Buffer, callback: (err: Error | null, result: Buffer) => void) => void
  /** A streaming encoder. */
  stream: () => Transform
}

const made = new Map<string, Encoder>()

/** The encoder of `name` at `level`, made once per pair (routes share them). */
export function encoderFor (name: Encoding, level: number): Encoder {
  const key = `${name}:${level}`
  let encoder = made.get(key)
  if (encoder === undefined) {
    encoder = createEncoder(name, level)
    made.set(key, encoder)
  }
  return encoder
}

export function createEncoder (name: Encoding, level: number): Encoder {
  if (name === 'gzip') {
    const options: zlib.ZlibOptions = { level }
    return {
      name,
      sync: (body) => zlib.gzipSync(body, options),
      async: (body, callback) => zlib.gzip(body, options, callback),
      stream: () => zlib.createGzip(options)
    }
  }
  // RFC 9110 §8.4.1.2: "deflate" is the zlib format (RFC 1950), not raw
  // deflate; a few old clients got this wrong, hence gzip's precedence in
  // the documented order (D-COMPRESSION-08).
  if (name === 'deflate') {
    const options: zlib.ZlibOptions = { level }
    return {
      name,
      sync: (body) => zlib.deflateSync(body, options),
      async: (body, callback) => zlib.deflate(body, options, callback),
      stream: () => zlib.createDeflate(options)
    }
  }
  // Brotli's default quality (11) is far too slow for responses made per
  // request; the same 1–9 scale is used as its quality instead (D-COMPRESSION-05).
  const options: zlib.BrotliOptions = {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: level,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT
    }
  }
  return {
    name,
    sync: (body) => zlib.brotliCompressSync(body, options),
    async: (body, callback) => zlib.brotliCompress(body, options, callback),
    stream: () => zlib.createBrotliCompress(options)
  }
}
