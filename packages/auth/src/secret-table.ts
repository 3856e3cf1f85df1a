import { constantTimeEqual, sha256 } from './digest.js'

/**
 * Up to this many secrets, comparing a candidate with every one of them in
 * constant time costs less than hashing it (a SHA-256 is ~0.3 µs, a compare
 * of a 43-character string ~0.05 µs); past it, the digest map keeps the
 * lookup O(1). Measured in bench/auth (docs/decisions.md).
 */
export const SCAN_LIMIT = 8

interface Scanned<V> {
  readonly secret: string
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

  constructor (entries: ReadonlyArray<readonly [secret: string, value: V]>) {
    if (entries.length <= SCAN_LIMIT) {
      this.#scan = entries.map(([secret, value]) => ({ secret, value }))
    } else {
      this.#byDigest = new Map(entries.map(([secret, value]) => [sha256(secret), value]))
    }
  }

  get size (): number {
    return this.#scan?.length ?? this.#byDigest!.size
  }

  /** The value for `candidate`, or undefined. */
  find (candidate: string): V | undefined {
    const scan = this.#scan
    if (scan === undefined) return this.#byDigest!.get(sha256(candidate))
    // Every entry is compared, whichever matches: the time depends on the
    // candidate's and the configured lengths, never on where they differ.
    let found: V | undefined
    for (let i = 0; i < scan.length; i++) {
      const entry = scan[i]!
      if (constantTimeEqual(entry.secret, candidate)) found = entry.value
    }
    return found
  }
}
