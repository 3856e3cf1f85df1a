import createError from '@fastify/error'
import { createCodedError, type CodedError, type HookTimeout } from '@fastify-gatehouse/core'

// Every code of this package; listed in docs/error-codes.md.

/** An option the schema accepts but CORS cannot honour (not an origin, `*` exposed with credentials, a stateful RegExp); names the option (and the route, for `config.cors`). */
export const GATEHOUSE_CORS_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_CORS_INVALID_OPTIONS', 'cors options: %s: %s', 500, TypeError)

/** With `strictPreflight`, an OPTIONS request without `Origin` or `Access-Control-Request-Method` (400); says which is missing. */
export const GATEHOUSE_CORS_INVALID_PREFLIGHT = createError<[string]>(
  'GATEHOUSE_CORS_INVALID_PREFLIGHT', 'Invalid CORS preflight request: %s (strictPreflight takes every OPTIONS request as a preflight)', 400)

/** The `allowOrigins` function gave no answer within `callbackTimeout` (503, `Retry-After: 5`). */
export const ORIGIN_CHECK_TIMEOUT = 'GATEHOUSE_CORS_ORIGIN_CHECK_TIMEOUT'
/** 503 {@link ORIGIN_CHECK_TIMEOUT}, `Retry-After: 5` (D-CORS-18); its message is written for the caller. */
export const GATEHOUSE_CORS_ORIGIN_CHECK_TIMEOUT = createCodedError<typeof ORIGIN_CHECK_TIMEOUT>(
  ORIGIN_CHECK_TIMEOUT, 'Cannot check the request\'s origin now: the check took too long; try again shortly', 503, { expose: true, headers: { 'retry-after': '5' } })

// D-CORS-18: `cause` names the limit.
export function originCheckTimeout (cause: HookTimeout): CodedError {
  return new GATEHOUSE_CORS_ORIGIN_CHECK_TIMEOUT({ cause })
}
