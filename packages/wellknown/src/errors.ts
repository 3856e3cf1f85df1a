import createError from '@fastify/error'

// Every code of this package; listed in docs/error-codes.md.

/** A `documents` entry has a bad name or value; the message names the entry. */
export const GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT = createError<[string, string]>(
  'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', 'wellknown documents[%s]: %s', 500, TypeError)

/** A dot path (`/.env`, `/.git/config`) or a well-known name with no document (404). */
export const GATEHOUSE_WELLKNOWN_NOT_FOUND = createError(
  'GATEHOUSE_WELLKNOWN_NOT_FOUND', 'Not Found', 404)
