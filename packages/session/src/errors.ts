import createError from '@fastify/error'
import { HttpError } from '@fastify-gatehouse/core'

/** The session options are inconsistent (e.g. SameSite=None without Secure); listed in docs/error-codes.md. */
export const GATEHOUSE_SESSION_INVALID_OPTIONS = createError<[string]>(
  'GATEHOUSE_SESSION_INVALID_OPTIONS', 'session options: %s', 500, TypeError)

/** The session store failed (503): sessions cannot be read or saved right now. */
export const STORE_UNAVAILABLE = 'GATEHOUSE_SESSION_STORE_UNAVAILABLE'

/** `checkIdentity` failed (503): the signed-in user's current standing cannot be checked right now. */
export const CHECK_UNAVAILABLE = 'GATEHOUSE_SESSION_CHECK_UNAVAILABLE'

/** Other requests kept changing the session while this one tried to save it (409). */
export const CONFLICT = 'GATEHOUSE_SESSION_CONFLICT'

// D-SESSION-04: a 503 both ways, never a silent logout.
export function storeUnavailable (cause: unknown): HttpError {
  return new HttpError(503, 'Session store unavailable', { code: STORE_UNAVAILABLE, headers: { 'retry-after': '5' }, cause })
}

export function checkUnavailable (cause: unknown): HttpError {
  return new HttpError(503, 'The signed-in user cannot be checked right now', { code: CHECK_UNAVAILABLE, headers: { 'retry-after': '5' }, cause })
}

export function sessionConflict (): HttpError {
  return new HttpError(409, 'The session was changed by other requests at the same time; try again', { code: CONFLICT })
}
