import createError from '@fastify/error'

// Every code of this package; listed in docs/error-codes.md.

/** No route matches the request (404); the message names the method and the path, never the query. */
export const GATEHOUSE_ERRORS_NOT_FOUND = createError<[string, string]>(
  'GATEHOUSE_ERRORS_NOT_FOUND', 'Route %s:%s not found', 404)
