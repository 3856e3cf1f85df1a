import { API_KEY_ID_PATTERN, checkIdentity } from '@fastify-gatehouse/auth'

// A lone surrogate reaches PostgreSQL as U+FFFD (pg encodes strings as
// UTF-8) and a NUL cannot be stored in text at all: a name holding either
// can name no row, and is answered as unknown without a query.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const KEY_ID = new RegExp(API_KEY_ID_PATTERN)

/** Whether `text` is well-formed UTF-16 (no lone surrogate), so it is stored as given. */
export function wellFormed (text: string): boolean {
  return !LONE_SURROGATE.test(text)
}

/** Whether `identity` could be stored: what `checkIdentity` accepts (no NUL or other control character), well-formed. */
export function storableIdentity (identity: unknown): identity is string {
  try {
    checkIdentity(identity)
  } catch {
    return false
  }
  return wellFormed(identity as string)
}

/** Whether `keyId` is a key id (16 lower-case hex digits). */
export function isKeyId (keyId: unknown): keyId is string {
  return typeof keyId === 'string' && KEY_ID.test(keyId)
}
