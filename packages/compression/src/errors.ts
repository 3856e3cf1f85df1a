import createError from '@fastify/error'

// Every code of this package; listed in docs/error-codes.md.

/** The compression options are inconsistent (e.g. an encoding listed twice); names the option. */
export const GATEHOUSE_COMPRESSION_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_COMPRESSION_INVALID_OPTIONS', 'compression options: %s: %s', 500, TypeError)
