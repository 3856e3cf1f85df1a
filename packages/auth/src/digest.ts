import { createHash } from 'node:crypto'
import * as crypto from 'node:crypto'

// crypto.hash (one-shot, no Hash object) exists from Node 20.12; fall back
// to createHash on older 20.x.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: string) => string | Buffer }).hash

/**
 * SHA-256 of a secret, base64url: the key under which credentials are
 * looked up, so lookups never compare the secret itself.
 */
export function sha256 (value: string): string {
  return oneShot !== undefined ? oneShot('sha256', value, 'base64url') as string : createHash('sha256').update(value).digest('base64url')
}

/**
 * Compares two strings in time that depends only on their lengths (no
 * early exit on content). Used on digests, whose length reveals nothing;
 * secrets whose length should not show go through `SecretTable`.
 * Strings rather than Buffers: a digest as a Buffer costs ~4× more to make.
 * D-AUTH-08.
 */
export function constantTimeEqual (a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}
