import createError from '@fastify/error'

// Every code of this package; listed in docs/error-codes.md.

/** An option the schema accepts but CORS cannot honour (not an origin, `*` exposed with credentials, a stateful RegExp); names the option (and the route, for `config.cors`). */
export const GATEHOUSE_CORS_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_CORS_INVALID_OPTIONS', 'cors options: %s: %s', 500, TypeError)

/** With `strictPreflight`, an OPTIONS request without `Origin` or `Access-Control-Request-Method` (400); says which is missing. */
export const GATEHOUSE_CORS_INVALID_PREFLIGHT = createError<[string]>(
  'GATEHOUSE_CORS_INVALID_PREFLIGHT', 'Invalid CORS preflight request: %s (strictPreflight takes every OPTIONS request as a preflight)', 400)
