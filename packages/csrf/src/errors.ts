import createError from '@fastify/error'

// Every code of this package; listed in docs/error-codes.md.

/** An unsafe request carrying the session cookie came from another site (403). */
export const GATEHOUSE_CSRF_CROSS_SITE = createError(
  'GATEHOUSE_CSRF_CROSS_SITE', 'Cross-site request refused: it carries the session cookie but comes from another origin', 403)

/** An option the schema accepts but the check cannot honour (not an origin, `*`); names the option. */
export const GATEHOUSE_CSRF_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_CSRF_INVALID_OPTIONS', 'csrf options: %s: %s', 500, TypeError)
