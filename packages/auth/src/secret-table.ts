import { sha256 } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'

/**
 * Up to this many secrets, comparing a candidate with every one of them in
 * constant time costs less than hashing it (a SHA-256 is ~0.3 µs, a compare
 * of a 43-character string ~0.05 µs); past it, the digest map keeps the
 * lookup O(1). Measured in bench/auth (D-AUTH-11).
 */
export const SCAN_LIMIT = 8

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
 * few secrets are all compared with the candidate in constant time, more
 * are looked up by the SHA-256 of the candidate.
 */
export class SecretTable<V> {
  readonly #scan: ReadonlyArray<Scanned<V>> | undefined
  readonly #byDigest: ReadonlyMap<string, V> | undefined

  /** @param scanLimit up to how many entries are scanned (bench/scan-limit.ts measures both ways). Default: {@link SCAN_LIMIT}. */
  constructor (entries: ReadonlyArray<readonly [secret: string, value: V]>, scanLimit = SCAN_LIMIT) {
    if (entries.length <= scanLimit) {
      this.#scan = entries.map(([secret, value]) => ({ secret: new ConstantTimeSecret(secret), value }))
    } else {
      this.#byDigest = new Map(entries.map(([secret, value]) => [sha256(secret), value]))
    }
  }

  /** The value for `candidate`, or undefined. */
  find (candidate: string): V | undefined {
    const scan = this.#scan
    if (scan === undefined) return this.#byDigest!.get(sha256(candidate))
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
