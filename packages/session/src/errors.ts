import createError from '@fastify/error'
import { HookTimeout, HttpError, safeFacts } from '@fastify-gatehouse/core'

// Every code of this package; listed in docs/error-codes.md.

// --- boot and programming errors ---------------------------------------------

/** The session options are inconsistent (e.g. SameSite=None without Secure); the message starts with the option. */
export const GATEHOUSE_SESSION_INVALID_OPTIONS = createError<[string]>(
  'GATEHOUSE_SESSION_INVALID_OPTIONS', 'session options: %s', 500, TypeError)

/** `session.login(…)` was called with a bad argument (no identity, a `via` or `stamp` that is not a string). */
export const GATEHOUSE_SESSION_INVALID_LOGIN = createError<[string]>(
  'GATEHOUSE_SESSION_INVALID_LOGIN', 'session.login: %s', 500, TypeError)

/**
 * `checkIdentity` answered something other than null or `{ tags: string[] }`.
 * Never thrown to the caller: it is the `cause` of the 503
 * `GATEHOUSE_SESSION_CHECK_UNAVAILABLE` (the session fails closed).
 */
export const GATEHOUSE_SESSION_INVALID_CHECK_ANSWER = createError(
  'GATEHOUSE_SESSION_INVALID_CHECK_ANSWER', 'checkIdentity must answer null or { tags: string[] }', 500, TypeError)

// --- request failures: answered by the errors component ------------------------

/** The session store failed (503): sessions cannot be read or saved right now. */
export const STORE_UNAVAILABLE = 'GATEHOUSE_SESSION_STORE_UNAVAILABLE'

/** `checkIdentity` failed (503): the signed-in user's current standing cannot be checked right now. */
export const CHECK_UNAVAILABLE = 'GATEHOUSE_SESSION_CHECK_UNAVAILABLE'

/** Other requests kept changing the session while this one tried to save it (409). */
export const CONFLICT = 'GATEHOUSE_SESSION_CONFLICT'

// D-SESSION-04: a 503 both ways, never a silent logout.
// D-SESSION-34: what a store threw is logged by its safe facts only (class,
// status, code): its message or fields may quote a session key or record.
export function storeUnavailable (cause: unknown, call = 'SessionStore'): HttpError {
  const safe = cause instanceof HookTimeout ? cause : new Error(`${call} threw ${safeFacts(cause)}`)
  return new HttpError(503, 'Session store unavailable', { code: STORE_UNAVAILABLE, headers: { 'retry-after': '5' }, cause: safe })
}

export function checkUnavailable (cause: unknown): HttpError {
  return new HttpError(503, 'The signed-in user cannot be checked right now', { code: CHECK_UNAVAILABLE, headers: { 'retry-after': '5' }, cause })
}

export function sessionConflict (): HttpError {
  return new HttpError(409, 'The session was changed by other requests at the same time; try again', { code: CONFLICT })
}
