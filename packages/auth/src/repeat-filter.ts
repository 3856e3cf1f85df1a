/**
 * Which tokens came before: a fixed table of 32-bit fingerprints, one slot
 * per fingerprint's low bits, so the memory is a typed array the size of
 * the cache it guards (a power of two, at most 2^20 slots) and nothing in it
 * is a JavaScript object for the garbage collector to trace or promote.
 *
 * A full verified-JWT cache asks it before taking a token in: a token seen
 * for the first time is recorded and not cached. Tokens that never come back
 * (one per request, as a client minting a token per call sends) then cost
 * no cache insert, no eviction and no avatar kept alive past its request;
 * a token that comes back is cached at its second verification. A
 * fingerprint collision only makes a token cached one verification early:
 * the filter never decides whether a token is valid.
 * D-AUTH-61.
 */
export class RepeatFilter {
  readonly #slots: Uint32Array
  readonly #mask: number

  /** @param size slots wanted (rounded up to a power of two, from 64 to 2^20) */
  constructor (size: number) {
    let slots = 64
    while (slots < size && slots < 1 << 20) slots *= 2
    this.#slots = new Uint32Array(slots)
    this.#mask = slots - 1
  }

  /** Whether `key` was recorded before (then forgotten, so it counts once); otherwise records it. */
  repeated (key: string): boolean {
    const hash = fingerprint(key)
    const slot = hash & this.#mask
    if (this.#slots[slot] === hash) {
      this.#slots[slot] = 0
      return true
    }
    this.#slots[slot] = hash
    return false
  }
}

// FNV-1a over the key's last 32 characters (a JWT's signature, which tells
// tokens apart), never 0 (an empty slot).
function fingerprint (key: string): number {
  let hash = 0x811c9dc5
  for (let i = Math.max(0, key.length - 32); i < key.length; i++) {
    hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
  }
  return (hash >>> 0) || 1
}
