import { createNegotiator, type Negotiator } from './accept-encoding.js'
import { encoderFor, type Encoder } from './encoders.js'
import type { Encoding, RequestEncoding, ResolvedCompressionOptions } from './options.js'

/** How responses are compressed, compiled once for the plugin and once per route that sets its own. */
export interface ResponseSettings {
  readonly minimumSize: number
  readonly noCompressionHeader: boolean
  readonly negotiate: Negotiator
  readonly encoders: ReadonlyMap<Encoding, Encoder>
}

/** How request bodies are decoded; `maxSize` undefined: the route's bodyLimit. */
export interface DecompressionSettings {
  readonly encodings: ReadonlySet<RequestEncoding>
  /** The Accept-Encoding value a 415 carries (RFC 9110 §12.5.3). */
  readonly accepted: string
  readonly maxSize: number | undefined
}

/** A route's or the plugin's compiled settings: `null` where the component stays out. */
export interface Settings {
  readonly response: ResponseSettings | null
  readonly request: DecompressionSettings | null
}

export const OFF: Settings = Object.freeze({ response: null, request: null })

// One negotiator per list of codings: routes offering the same codings
// share its memory of Accept-Encoding answers.
const negotiators = new Map<string, Negotiator>()

function negotiatorFor (encodings: readonly Encoding[]): Negotiator {
  const key = encodings.join(',')
  let negotiate = negotiators.get(key)
  if (negotiate === undefined) {
    negotiate = createNegotiator(encodings)
    negotiators.set(key, negotiate)
  }
  return negotiate
}

/** Compiles resolved options into what the hooks read per request. */
export function compileSettings (opts: ResolvedCompressionOptions): Settings {
  const decompression = opts.requestDecompression
  return Object.freeze({
    response: Object.freeze({
      minimumSize: opts.minimumSize,
      noCompressionHeader: opts.noCompressionHeader,
      negotiate: negotiatorFor(opts.encodings),
      encoders: new Map(opts.encodings.map((name) => [name, encoderFor(name, opts.compressionLevel)]))
    }),
    request: decompression === false
      ? null
      : Object.freeze({
        encodings: new Set(decompression.encodings),
        accepted: decompression.encodings.join(', '),
        maxSize: decompression.maxSize
      })
  })
}
