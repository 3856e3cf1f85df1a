import createError from '@fastify/error'

// Every code of this package; listed in docs/error-codes.md.

/** The cache options contradict each other (e.g. `immutable` with `maxAge: 0`); names the option. */
export const GATEHOUSE_CACHE_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_CACHE_INVALID_OPTIONS', 'cache options: %s: %s', 500, TypeError)

/** `etag: 'content'` with an @fastify/etag whose plugin no longer adds the onSend hook this package borrows. */
export const GATEHOUSE_CACHE_ETAG_UNSUPPORTED = createError<[string]>(
  'GATEHOUSE_CACHE_ETAG_UNSUPPORTED', 'etag: \'content\' cannot be served: %s', 500, TypeError)
