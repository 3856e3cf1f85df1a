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
