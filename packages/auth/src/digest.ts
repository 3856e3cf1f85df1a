import { createHash, timingSafeEqual } from 'node:crypto'
import * as crypto from 'node:crypto'

// crypto.hash (one-shot, no Hash object) exists from Node 20.12; fall back
// to createHash on older 20.x.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash

/**
 * SHA-256 of a secret, base64url: the key under which credentials are
 * looked up, so lookups never compare the secret itself.
 */
export function sha256 (value: string): string {
  return oneShot !== undefined ? oneShot('sha256', value, 'base64url') : createHash('sha256').update(value).digest('base64url')
}

/** Compares two strings in time that depends only on their lengths. */
export function constantTimeEqual (a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
