import { sha256 } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'

/**
 * Characters compared at most by a scan (entries × the candidate's
 * length): while a lookup stays within it, comparing the candidate with
 * every secret in constant time costs less than hashing it; past it, one
 * SHA-256 and a map lookup do (~6.2 k instructions, against ~40 per
 * character compared). bench/scan-limit.ts measured the crossover at 3–4
 * 43-character tokens and 4–5 32-character Basic credentials. Choosing by
 * the candidate's length, which the caller picked, also bounds what a long
 * garbage credential costs. D-AUTH-11; D-AUTH-59.
 */
export const SCAN_BUDGET = 150

/** Tables of more entries than this are never scanned: even 1-character candidates would pass {@link SCAN_BUDGET}'s crossover soon. */
const MAX_SCANNED = 16

/**
 * A secret that a candidate is compared with in time that depends only on
 * the candidate's length: every character of the candidate is compared,
 * against the secret repeated out to a power-of-two length (so the index
 * is a mask, never a branch or a read past the end), and the lengths'
 * difference is folded into the result. Neither where the two differ nor
 * the secret's length shows; a plain compare that stops at unequal lengths
 * would tell a Basic password's length.
 * D-AUTH-11: time depends on the candidate's length alone.
 */
export class ConstantTimeSecret {
  readonly #length: number
  // Character codes in a typed array: reading a string made by repeat()
  // and slice() goes through its parts on every charCodeAt.
  readonly #padded: Uint16Array
  readonly #mask: number

  constructor (secret: string) {
    if (secret === '') throw new GATEHOUSE_AUTH_INVALID_CONFIG('secret', 'cannot be empty')
    const size = 2 ** Math.ceil(Math.log2(secret.length))
    this.#length = secret.length
    this.#padded = new Uint16Array(size)
    for (let i = 0; i < size; i++) this.#padded[i] = secret.charCodeAt(i % secret.length)
    this.#mask = size - 1
  }

  equals (candidate: string): boolean {
    const padded = this.#padded
    const mask = this.#mask
    let difference = candidate.length ^ this.#length
    for (let i = 0; i < candidate.length; i++) difference |= candidate.charCodeAt(i) ^ padded[i & mask]!
    return difference === 0
  }
}

interface Scanned<V> {
  readonly secret: ConstantTimeSecret
  readonly value: V
}

/**
 * Values found by a secret (a static bearer token, a Basic credential),
 * without ever comparing the secret with an early exit on its content: a
 * few secrets are all compared with a short candidate in constant time;
 * otherwise the candidate's SHA-256 is looked up. Which of the two depends
 * on the number of entries and the candidate's length only.
 */
export class SecretTable<V> {
  readonly #scan: ReadonlyArray<Scanned<V>> | undefined
  readonly #byDigest: ReadonlyMap<string, V>
  readonly #budget: number

  /** @param budget see {@link SCAN_BUDGET} (bench/scan-limit.ts forces either way with Infinity and 0). */
  constructor (entries: ReadonlyArray<readonly [secret: string, value: V]>, budget = SCAN_BUDGET) {
    this.#budget = budget
    if (entries.length <= Math.min(MAX_SCANNED, budget)) {
      this.#scan = entries.map(([secret, value]) => ({ secret: new ConstantTimeSecret(secret), value }))
    }
    this.#byDigest = new Map(entries.map(([secret, value]) => [sha256(secret), value]))
  }

  /** The value for `candidate`, or undefined. */
  find (candidate: string): V | undefined {
    const scan = this.#scan
    if (scan === undefined || candidate.length * scan.length > this.#budget) return this.#byDigest.get(sha256(candidate))
    // Every entry is compared, whichever matches: the time depends on the
    // candidate's length and the number of entries, never on their content.
    let found: V | undefined
    for (let i = 0; i < scan.length; i++) {
      const entry = scan[i]!
      if (entry.secret.equals(candidate)) found = entry.value
    }
    return found
  }
}
