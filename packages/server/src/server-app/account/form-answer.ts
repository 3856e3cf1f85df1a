import type { FastifyReply } from 'fastify'

/** What a form of the account page did, as `?done=<code>`: a fixed set, never text from the request. */
export type AccountDone = 'password-changed' | 'session-revoked' | 'others-revoked'

/** Why a form of the account page failed, as `?error=<code>`: a fixed set, never text from the request. */
export type AccountError = 'missing' | 'mismatch' | 'same-password' | 'wrong-password' | 'locked' | 'weak' | 'not-found' | 'conflict'

/** Numbers and fixed words the page may show beside the code: `ended`, `retry`, the policy's `rule`. */
export type AccountDetail = Readonly<Record<string, string | number>>

/**
 * Sends a browser form (no JavaScript) back to the account page with 303:
 * `<prefix>/account?done=password-changed&ended=2`,
 * `…?error=weak&rule=min-length`. The page picks its message by the code.
 * D-SERVER-30.
 */
export function backToAccount (reply: FastifyReply, prefix: string, outcome: { done: AccountDone } | { error: AccountError }, detail: AccountDetail = {}): FastifyReply {
  const query = new URLSearchParams({ ...outcome })
  for (const [name, value] of Object.entries(detail)) query.set(name, String(value))
  return reply.code(303).header('location', `${prefix}/account?${query.toString()}`).send()
}
