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
