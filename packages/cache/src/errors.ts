import createError from '@fastify/error'

// Every code of this package; listed in docs/error-codes.md.

/** The cache options contradict each other (e.g. `immutable` with `maxAge: 0`); names the option. */
export const GATEHOUSE_CACHE_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_CACHE_INVALID_OPTIONS', 'cache options: %s: %s', 500, TypeError)

/** `etag: 'content'` with an @fastify/etag whose plugin no longer adds the onSend hook this package borrows. */
export const GATEHOUSE_CACHE_ETAG_UNSUPPORTED = createError<[string]>(
  'GATEHOUSE_CACHE_ETAG_UNSUPPORTED', 'etag: \'content\' cannot be served: %s', 500, TypeError)

/**
 * A GET or HEAD whose `If-Match` or `If-Unmodified-Since` does not hold for
 * the current representation (RFC 9110 §13.1.1, §13.1.4); names the header.
 */
export const GATEHOUSE_CACHE_PRECONDITION_FAILED = createError<[string]>(
  'GATEHOUSE_CACHE_PRECONDITION_FAILED', 'Precondition failed: %s', 412)

/**
 * A file response's `Range` has no byte inside the representation (RFC 9110
 * §15.5.17); the response's `Content-Range` is the unsatisfied-range form
 * (an asterisk, then the length).
 */
export const GATEHOUSE_CACHE_RANGE_NOT_SATISFIABLE = createError<[number]>(
  'GATEHOUSE_CACHE_RANGE_NOT_SATISFIABLE', 'Range not satisfiable: the representation has %d bytes', 416)

/**
 * A file response's file ended before the bytes its response promised (it
 * shrank between the fstat its validators and Content-Length came from and
 * the read); the connection is closed, so nothing after it is read as the
 * rest of the body. Logged, never answered.
 */
export const GATEHOUSE_CACHE_FILE_SHRANK = createError<[number, number]>(
  'GATEHOUSE_CACHE_FILE_SHRANK', 'The file ended after %d of the %d bytes its response promised (it shrank while being sent); the connection was closed', 500)
