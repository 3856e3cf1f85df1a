import { Type, type TObject } from '@sinclair/typebox'
import { GATEHOUSE_COMPRESSION_INVALID_OPTIONS } from './errors.js'

/** A content coding this component can produce. */
export type Encoding = 'br' | 'gzip' | 'deflate'

/** A content coding this component can decode from a request body. */
export type RequestEncoding = 'br' | 'gzip' | 'deflate'

/** How request bodies sent with a `Content-Encoding` are decoded. */
export interface RequestDecompressionOptions {
  /** Codings accepted; another is refused with 415. Default: `['gzip', 'deflate', 'br']`. */
  encodings?: RequestEncoding[]
  /**
   * Largest decoded body, in bytes; more is refused with 413 as soon as it
   * is passed. Default: the route's `bodyLimit` (Fastify's, 1 MiB, unless set).
   */
  maxSize?: number
}

/** The options a route can set in `config.compression` (each replaces the plugin's). */
export interface RouteCompressionOptions {
  /** Smallest body, in bytes, worth compressing. Default: 500. */
  minimumSize?: number
  /** zlib level 1 (fastest) to 9 (smallest); also the Brotli quality when `br` is on. Default: 6. */
  compressionLevel?: number
  /**
   * Codings offered, in the server's order of preference (used when the
   * client weighs several equally). Default: `['gzip']`.
   */
  encodings?: Encoding[]
  /** A request carrying `X-No-Compression` (any value) gets an uncompressed response. Default: false. */
  noCompressionHeader?: boolean
  /**
   * Decode request bodies sent with `Content-Encoding: gzip`, `deflate` or
   * `br` before the body parser sees them. `true` takes the defaults of
   * {@link RequestDecompressionOptions}. Default: false.
   */
  requestDecompression?: boolean | RequestDecompressionOptions
}

/** Options of the compression component; every key is optional. */
export interface CompressionOptions extends RouteCompressionOptions {}

/** {@link RequestDecompressionOptions} with every default applied; `maxSize` undefined: the route's bodyLimit. */
export interface ResolvedRequestDecompression {
  readonly encodings: readonly RequestEncoding[]
  readonly maxSize: number | undefined
}

/** {@link CompressionOptions} with every default applied. */
export interface ResolvedCompressionOptions {
  readonly minimumSize: number
  readonly compressionLevel: number
  readonly encodings: readonly Encoding[]
  readonly noCompressionHeader: boolean
  /** `false`: request bodies are left as they are sent. */
  readonly requestDecompression: ResolvedRequestDecompression | false
}

export const defaults: ResolvedCompressionOptions = Object.freeze({
  minimumSize: 500,
  compressionLevel: 6,
  encodings: Object.freeze(['gzip'] as Encoding[]),
  noCompressionHeader: false,
  requestDecompression: false
})

/** What `requestDecompression: true` means. */
export const requestDecompressionDefaults: ResolvedRequestDecompression = Object.freeze({
  encodings: Object.freeze(['gzip', 'deflate', 'br'] as RequestEncoding[]),
  maxSize: undefined
})

const coding = Type.Union([Type.Literal('gzip'), Type.Literal('br'), Type.Literal('deflate')])

const requestDecompressionSchema = Type.Union([
  Type.Boolean(),
  Type.Object({
    encodings: Type.Optional(Type.Array(coding, { minItems: 1 })),
    maxSize: Type.Optional(Type.Integer({ minimum: 1 }))
  }, { additionalProperties: false })
])

/** The schema of a route's `config.compression` object (and of the plugin's options). */
export const routeCompressionOptionsSchema: TObject = Type.Object({
  minimumSize: Type.Optional(Type.Integer({ minimum: 0 })),
  compressionLevel: Type.Optional(Type.Integer({ minimum: 1, maximum: 9 })),
  encodings: Type.Optional(Type.Array(coding, { minItems: 1 })),
  noCompressionHeader: Type.Optional(Type.Boolean()),
  requestDecompression: Type.Optional(requestDecompressionSchema)
}, { additionalProperties: false })

export const compressionOptionsSchema: TObject = routeCompressionOptionsSchema

function listedOnce<T extends string> (list: readonly T[], option: string): readonly T[] {
  const seen = new Set<T>()
  for (const name of list) {
    // D-CONFIG-04.
    if (seen.has(name)) throw new GATEHOUSE_COMPRESSION_INVALID_OPTIONS(option, `lists "${name}" twice`)
    seen.add(name)
  }
  // A copy: the caller's array is neither kept nor changed.
  return Object.freeze([...list])
}

function resolveRequestDecompression (value: boolean | RequestDecompressionOptions): ResolvedRequestDecompression | false {
  if (value === false) return false
  if (value === true) return requestDecompressionDefaults
  return Object.freeze({
    encodings: value.encodings === undefined ? requestDecompressionDefaults.encodings : listedOnce(value.encodings, 'requestDecompression.encodings'),
    maxSize: value.maxSize
  })
}

/**
 * Applies `options` over `base` (the defaults, or the plugin's resolved
 * options for a route's `config.compression`): each key given replaces
 * the base's. Checks what the schema cannot (a coding listed twice).
 */
export function resolveCompressionOptions (options: RouteCompressionOptions, base: ResolvedCompressionOptions = defaults): ResolvedCompressionOptions {
  return Object.freeze({
    minimumSize: options.minimumSize ?? base.minimumSize,
    compressionLevel: options.compressionLevel ?? base.compressionLevel,
    encodings: options.encodings === undefined ? base.encodings : listedOnce(options.encodings, 'encodings'),
    noCompressionHeader: options.noCompressionHeader ?? base.noCompressionHeader,
    requestDecompression: options.requestDecompression === undefined ? base.requestDecompression : resolveRequestDecompression(options.requestDecompression)
  })
}
