import createError from '@fastify/error'

// Every code of this package; listed in docs/error-codes.md.

/** An option the schema accepts but CORS cannot honour (not an origin, `*` exposed with credentials); names the option. */
export const GATEHOUSE_CORS_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_CORS_INVALID_OPTIONS', 'cors options: %s: %s', 500, TypeError)
