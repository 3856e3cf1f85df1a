import { sha256 } from '@fastify-gatehouse/core'

// The longest identity a store accepts (checkIdentity); a longer one is keyed by its digest.
const MAX_IDENTITY_IN_KEY = 200

/**
 * The lockout store key of an identity (`identity:<identity>`), as the
 * server's login and `basicLockout` build it. An identity longer than any
 * store accepts (200 characters) is keyed by its SHA-256
 * (`identity:sha256:<base64url>`), so every key is at most 209 characters
 * whatever user name a request carries; such a name matches no user, so
 * its failures count the same under either key.
 * D-AUTH-77: a key's length is bounded, so the store's memory bound holds.
 */
export function identityKey (identity: string): string {
  return identity.length > MAX_IDENTITY_IN_KEY ? `identity:sha256:${sha256(identity)}` : `identity:${identity}`
}
