import * as crypto from 'node:crypto'

// crypto.hash (one-shot, no Hash object) exists from Node 20.12; the
// packages admit 20.11, so fall back to createHash there. D-CORE-03.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: string) => string }).hash

/**
 * SHA-256 of `value`, base64url. Used as the lookup key of secrets (API
 * keys, session ids, static tokens), so stores and maps never hold or
 * compare the secret itself.
 */
export function sha256 (value: string): string {
  return oneShot !== undefined
    ? oneShot('sha256', value, 'base64url')
    : crypto.createHash('sha256').update(value).digest('base64url')
}
