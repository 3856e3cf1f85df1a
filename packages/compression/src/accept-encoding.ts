import { LruMap, TOKEN } from '@fastify-gatehouse/core'
import type { Encoding } from './options.js'

// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )  (RFC 9110 §12.4.2)
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/

// Clients send a handful of distinct values; remember the answer for each.
// The header is the caller's to choose, so the memory is bounded and keeps
// short values only. A hit is read with `peek` (one Map lookup, as cheap as
// a plain Map): the oldest answer goes first when the memory is full, which
// bounds it as well, and a flood of odd values costs a browser's value one
// parse more, instead of every hit paying for reordering.
// D-COMPRESSION-01: answers memoised in small bounded maps.
// D-COMPRESSION-07: an LruMap read with peek.
export const MEMO_ENTRIES = 256
export const MEMO_VALUE_LENGTH = 256

/** The weights an Accept-Encoding value gives; absent keys were not listed. */
interface Weights {
  codings: Map<string, number>
  star: number | undefined
}

function parse (header: string): Weights {
  const codings = new Map<string, number>()
  let star: number | undefined
  for (const member of header.split(',')) {
    const parts = member.split(';')
    // Lower-cased first: codings compare case-insensitively (RFC 9110 §8.4.1).
    let coding = parts[0]!.trim().toLowerCase()
    if (coding === '') continue
    if (!TOKEN.test(coding)) continue
    let q = 1
    let valid = true
    for (let i = 1; i < parts.length; i++) {
      const param = parts[i]!.trim()
      const eq = param.indexOf('=')
      if (eq === -1) { valid = false; break }
      if (param.slice(0, eq).toLowerCase() !== 'q') continue
      const value = param.slice(eq + 1)
      if (!QVALUE.test(value)) { valid = false; break }
      q = Number(value)
    }
    // A malformed member says nothing we can rely on: ignore it.
    if (!valid) continue
    // x-gzip is gzip (RFC 9110 §8.4.1.3).
    if (coding === 'x-gzip') coding = 'gzip'
    if (coding === '*') star ??= q
    else if (!codings.has(coding)) codings.set(coding, q)
  }
  return { codings, star }
}

/** Chooses the coding for an Accept-Encoding value (see {@link createNegotiator}). */
export interface Negotiator {
  (header: string | undefined): Encoding | null
  /** The answers remembered, by header value: at most {@link MEMO_ENTRIES}. */
  readonly memo: LruMap<string, Encoding | null>
}

/**
 * Chooses the coding of a response from Accept-Encoding (RFC 9110 §12.5.3),
 * or null for identity. Only `offered` codings are chosen, by weight, ties
 * in `offered` order; a coding is refused at q=0, and when neither it nor
 * `*` is listed. Identity wins only when it is weighted above the best
 * coding. No header, or an empty one, means identity (the RFC lets a server
 * pick any coding then, but a client that sends nothing may not decode one).
 * D-COMPRESSION-05.
 */
export function createNegotiator (offered: readonly Encoding[]): Negotiator {
  const memo = new LruMap<string, Encoding | null>(MEMO_ENTRIES)

  function choose (header: string): Encoding | null {
    const { codings, star } = parse(header)
    let best: Encoding | null = null
    let bestQ = 0
    for (const coding of offered) {
      const q = codings.get(coding) ?? star ?? 0
      if (q > bestQ) { best = coding; bestQ = q }
    }
    if (best === null) return null
    const identity = codings.get('identity') ?? star
    return identity !== undefined && identity > bestQ ? null : best
  }

  function negotiate (header: string | undefined): Encoding | null {
    if (header === undefined || header === '') return null
    let chosen = memo.peek(header)
    if (chosen !== undefined) return chosen
    chosen = choose(header)
    if (header.length <= MEMO_VALUE_LENGTH) memo.set(header, chosen)
    return chosen
  }
  return Object.assign(negotiate, { memo })
}
