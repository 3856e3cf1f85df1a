import { Type } from '@sinclair/typebox'
import { GATEHOUSE_COMPRESSION_INVALID_OPTIONS } from './errors.js'

/** A content coding this component can produce. */
export type Encoding = 'gzip' | 'br'

/** Options of the compression component; every key is optional. */
export interface CompressionOptions {
  /** Smallest body, in bytes, worth compressing. Default: 500. */
  minimumSize?: number
  /** zlib level 1 (fastest) to 9 (smallest); also the Brotli quality when `br` is on. Default: 6. */
  compressionLevel?: number
  /**
   * Codings offered, in the server's order of preference (used when the
   * client weighs several equally). Default: `['gzip']`.
   */
  encodings?: Encoding[]
}

/** {@link CompressionOptions} with every default applied. */
export interface ResolvedCompressionOptions {
  readonly minimumSize: number
  readonly compressionLevel: number
  readonly encodings: readonly Encoding[]
}

export const defaults: ResolvedCompressionOptions = Object.freeze({
  minimumSize: 500,
  compressionLevel: 6,
  encodings: Object.freeze(['gzip'] as Encoding[])
})

export const compressionOptionsSchema = Type.Object({
  minimumSize: Type.Optional(Type.Integer({ minimum: 0 })),
  compressionLevel: Type.Optional(Type.Integer({ minimum: 1, maximum: 9 })),
  encodings: Type.Optional(Type.Array(Type.Union([Type.Literal('gzip'), Type.Literal('br')]), { minItems: 1 }))
}, { additionalProperties: false })

/** Applies the defaults and checks what the schema cannot (an encoding listed twice). */
export function resolveCompressionOptions (options: CompressionOptions): ResolvedCompressionOptions {
  // A copy: the caller's array is neither kept nor changed.
  const encodings = Object.freeze([...(options.encodings ?? defaults.encodings)])
  const seen = new Set<Encoding>()
  for (const name of encodings) {
    // D-CONFIG-04.
    if (seen.has(name)) throw new GATEHOUSE_COMPRESSION_INVALID_OPTIONS('encodings', `lists "${name}" twice`)
    seen.add(name)
  }
  return Object.freeze({ ...defaults, ...options, encodings })
}
