import createError from '@fastify/error'

/** The cache options contradict each other (e.g. `immutable` with `maxAge: 0`); listed in docs/error-codes.md. */
export const GATEHOUSE_CACHE_INVALID_OPTIONS = createError<[string]>(
  'GATEHOUSE_CACHE_INVALID_OPTIONS', 'cache options: %s', 500, TypeError)
