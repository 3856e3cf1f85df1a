import createError from '@fastify/error'

// Every code of this package; listed in docs/error-codes.md.

/** No route matches the request (404); the message names the method and the path, never the query. */
export const GATEHOUSE_ERRORS_NOT_FOUND = createError<[string, string]>(
  'GATEHOUSE_ERRORS_NOT_FOUND', 'Route %s:%s not found', 404)

/**
 * The code of every 5xx whose details are not written for the caller (an
 * error that is not an `HttpError` and does not set `expose`): the body says
 * only the status, this code tells a client it is not one of the
 * application's own; the details are in the log. D-ERRORS-18.
 */
export const GATEHOUSE_ERRORS_INTERNAL = createError(
  'GATEHOUSE_ERRORS_INTERNAL', 'Internal Server Error', 500)
