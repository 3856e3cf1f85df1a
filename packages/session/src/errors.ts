import createError from '@fastify/error'
import { HttpError } from '@gatehouse/core'

/** The session options are inconsistent (e.g. SameSite=None without Secure); listed in docs/error-codes.md. */
export const GATEHOUSE_SESSION_INVALID_OPTIONS = createError<[string]>(
  'GATEHOUSE_SESSION_INVALID_OPTIONS', 'session options: %s', 500, TypeError)

/** The session store failed (503): sessions cannot be read or saved right now. */
export const STORE_UNAVAILABLE = 'GATEHOUSE_SESSION_STORE_UNAVAILABLE'

export function storeUnavailable (cause: unknown): HttpError {
  return new HttpError(503, 'Session store unavailable', { code: STORE_UNAVAILABLE, headers: { 'retry-after': '5' }, cause })
}
