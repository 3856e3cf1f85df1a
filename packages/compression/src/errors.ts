import createError from '@fastify/error'

/** The compression options are inconsistent (e.g. an encoding listed twice); listed in docs/error-codes.md. */
export const GATEHOUSE_COMPRESSION_INVALID_OPTIONS = createError<[string]>(
  'GATEHOUSE_COMPRESSION_INVALID_OPTIONS', 'compression options: %s', 500, TypeError)
