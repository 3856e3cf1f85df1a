import type { FastifyContextConfig, FastifyRequest } from 'fastify'
import { HttpError } from '@fastify-gatehouse/core'

// TEMPORARY — a duplicate of the `fresh` route option (branch i16-fresh,
// core's onRoute check and the errors component's answer). The account
// routes already carry `config.fresh` (freshRoute below); once core
// enforces it, drop this file's requireFreshUntilCoreDoes and its calls.

/** The route config asking for a sign-in within `seconds` (core's `fresh` route option). */
export function freshRoute (seconds: number): FastifyContextConfig {
  return { fresh: seconds } as FastifyContextConfig
}

const REAUTHENTICATE = 'GATEHOUSE_CORE_REAUTHENTICATE'

/**
 * Throws core's 401 `GATEHOUSE_CORE_REAUTHENTICATE` (RFC 9470 challenge)
 * unless the caller's session was signed in within `seconds`. Only called
 * for session callers (the account gate refused the others first).
 */
export function requireFreshUntilCoreDoes (request: FastifyRequest, seconds: number, now = Date.now()): void {
  const signedInAt = request.scope.session?.signedInAt ?? null
  if (signedInAt !== null && now - signedInAt <= seconds * 1000) return
  throw new HttpError(401, `This route needs a sign-in within the last ${seconds} seconds; sign in again`, {
    code: REAUTHENTICATE,
    headers: { 'www-authenticate': `Bearer realm="gatehouse", error="insufficient_user_authentication", error_description="A more recent sign-in is required", max_age="${seconds}"` }
  })
}
