import createError from '@fastify/error'
import { createCodedError, type CodedError } from '@fastify-gatehouse/core'

// Every code of this package; listed in docs/error-codes.md.

/** The compression options are inconsistent (e.g. an encoding listed twice); names the option. */
export const GATEHOUSE_COMPRESSION_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_COMPRESSION_INVALID_OPTIONS', 'compression options: %s: %s', 500, TypeError)

/** A route's `config.compression` is not `false` or valid options; names the route and the option. */
export const GATEHOUSE_COMPRESSION_INVALID_ROUTE_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_COMPRESSION_INVALID_ROUTE_OPTIONS', 'compression options of route %s: %s', 500, TypeError)

/** A request body's Content-Encoding is not one the route decodes (415). */
export const UNSUPPORTED_ENCODING = 'GATEHOUSE_COMPRESSION_UNSUPPORTED_ENCODING'
/** A request body decodes to more than the route allows (413). */
export const BODY_TOO_LARGE = 'GATEHOUSE_COMPRESSION_BODY_TOO_LARGE'
/** A request body is not valid data of its Content-Encoding (400). */
export const INVALID_BODY = 'GATEHOUSE_COMPRESSION_INVALID_BODY'

/** 415 {@link UNSUPPORTED_ENCODING}: `new X(shownHeader, accepted)`, with `Accept-Encoding` given to each error. */
export const GATEHOUSE_COMPRESSION_UNSUPPORTED_ENCODING = createCodedError<typeof UNSUPPORTED_ENCODING, [shown: string, accepted: string]>(
  UNSUPPORTED_ENCODING, 'request Content-Encoding %s is not supported; send one of: %s', 415)
/** 413 {@link BODY_TOO_LARGE}; the message names the limit. */
export const GATEHOUSE_COMPRESSION_BODY_TOO_LARGE = createCodedError<typeof BODY_TOO_LARGE, [detail: string]>(
  BODY_TOO_LARGE, 'request body %s', 413)
/** 400 {@link INVALID_BODY}: `new X(coding)`. */
export const GATEHOUSE_COMPRESSION_INVALID_BODY = createCodedError<typeof INVALID_BODY, [coding: string]>(
  INVALID_BODY, 'request body is not valid %s data', 400)

// Header values are the caller's: shown cut short, and only when printable.
const SHOWN_LENGTH = 64
const PRINTABLE = /^[\x20-\x7e]*$/

function shown (value: string): string {
  const cut = value.length > SHOWN_LENGTH ? `${value.slice(0, SHOWN_LENGTH)}…` : value
  return PRINTABLE.test(value) ? JSON.stringify(cut) : '(not printable)'
}

/**
 * 415 for a request body whose coding the route does not decode, with the
 * Accept-Encoding the route does (RFC 9110 §12.5.3).
 */
export function unsupportedEncoding (header: string, accepted: string): CodedError {
  return new GATEHOUSE_COMPRESSION_UNSUPPORTED_ENCODING(shown(header), accepted, { headers: { 'accept-encoding': accepted } })
}

/** 413 for a request body that decodes to more than `limit` bytes. */
export function bodyTooLarge (limit: number): CodedError {
  return new GATEHOUSE_COMPRESSION_BODY_TOO_LARGE(`decodes to more than ${limit} bytes`)
}

/** 413 (the same code) for a request body whose encoded bytes pass `limit`, whatever they decode to. */
export function encodedBodyTooLarge (limit: number): CodedError {
  return new GATEHOUSE_COMPRESSION_BODY_TOO_LARGE(`is larger than ${limit} bytes encoded`)
}

/** 400 for a request body that is not valid `coding` data. */
export function invalidBody (coding: string): CodedError {
  return new GATEHOUSE_COMPRESSION_INVALID_BODY(coding)
}
