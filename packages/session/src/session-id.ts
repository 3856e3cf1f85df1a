import { randomBytes } from 'node:crypto'
import { sha256 } from '@fastify-gatehouse/core'

const ID = /^[A-Za-z0-9_-]{43}$/

/** A new session id: 32 random bytes, base64url. */
export function newSessionId (): string {
  return randomBytes(32).toString('base64url')
}

/** Whether `value` has the form of a session id (anything else is ignored, unlooked-up). */
export function isSessionId (value: unknown): value is string {
  return typeof value === 'string' && ID.test(value)
}

/** The store key of a session id: its SHA-256, base64url. */
export function sessionKey (id: string): string {
  return sha256(id)
}

/**
 * The handle of a stored session: what its owner and administrators see
 * and name it by (to revoke it). A digest of the store key under a label of
 * its own, cut to 22 characters (132 bits): stable for the session's life,
 * never the id or the key, and neither can be worked back from it.
 * D-SESSION-20.
 */
export function sessionHandle (key: string): string {
  return sha256(`gatehouse session handle\0${key}`).slice(0, 22)
}

const HANDLE = /^[A-Za-z0-9_-]{22}$/

/** Whether `value` has the form of a session handle. */
export function isSessionHandle (value: unknown): value is string {
  return typeof value === 'string' && HANDLE.test(value)
}
