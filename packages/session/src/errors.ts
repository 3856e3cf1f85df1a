import createError from '@fastify/error'
import { createCodedError, HookTimeout, safeFacts, type CodedError } from '@fastify-gatehouse/core'

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
/** 503 {@link STORE_UNAVAILABLE}, `Retry-After: 5`. */
export const GATEHOUSE_SESSION_STORE_UNAVAILABLE = createCodedError<typeof STORE_UNAVAILABLE>(
  STORE_UNAVAILABLE, 'Session store unavailable', 503, { expose: true, headers: { 'retry-after': '5' } })

/** `checkIdentity` failed (503): the signed-in user's current standing cannot be checked right now. */
export const CHECK_UNAVAILABLE = 'GATEHOUSE_SESSION_CHECK_UNAVAILABLE'
/** 503 {@link CHECK_UNAVAILABLE}, `Retry-After: 5`. */
export const GATEHOUSE_SESSION_CHECK_UNAVAILABLE = createCodedError<typeof CHECK_UNAVAILABLE>(
  CHECK_UNAVAILABLE, 'The signed-in user cannot be checked right now', 503, { expose: true, headers: { 'retry-after': '5' } })

/** Other requests kept changing the session while this one tried to save it (409). */
export const CONFLICT = 'GATEHOUSE_SESSION_CONFLICT'
/** 409 {@link CONFLICT}. */
export const GATEHOUSE_SESSION_CONFLICT = createCodedError<typeof CONFLICT>(
  CONFLICT, 'The session was changed by other requests at the same time; try again', 409)

// D-SESSION-04: a 503 both ways, never a silent logout.
// D-SESSION-34: what a store threw is logged by its safe facts only (class,
// status, code): its message or fields may quote a session key or record.
export function storeUnavailable (cause: unknown, call = 'SessionStore'): CodedError {
  const safe = cause instanceof HookTimeout ? cause : new Error(`${call} threw ${safeFacts(cause)}`)
  return new GATEHOUSE_SESSION_STORE_UNAVAILABLE({ cause: safe })
}

export function checkUnavailable (cause: unknown): CodedError {
  return new GATEHOUSE_SESSION_CHECK_UNAVAILABLE({ cause })
}

export function sessionConflict (): CodedError {
  return new GATEHOUSE_SESSION_CONFLICT()
}
