import { STATUS_CODES } from 'node:http'
import { GATEHOUSE_CORE_INVALID_HTTP_ERROR } from './errors.js'
import { isToken } from './http-syntax.js'
import { brandClass } from './process-wide.js'

/** Extra headers an error response carries, e.g. `WWW-Authenticate` or `Retry-After`. */
export type ErrorHeaders = Readonly<Record<string, string | readonly string[]>>

/** Options of {@link HttpError}. */
export interface HttpErrorOptions {
  /** Headers added to the error response. */
  headers?: ErrorHeaders
  /**
   * A stable machine-readable code of yours (`ORDER_NOT_FOUND`), sent as
   * `code` in the JSON body: letters, digits and `_ . : -`, starting with a
   * letter, at most 128. Default: none (the body then has no `code`).
   */
  code?: string
  /** The underlying cause, logged, never sent to the caller. */
  cause?: unknown
}

// Header values go on the wire as they are: only tab and visible ASCII are
// safe (Node refuses the rest with an exception at send time).
// D-ERRORS-09: refused at construction, so answering an error cannot throw.
const SAFE_HEADER_VALUE = /^[\t\x20-\x7e]*$/
// D-ERRORS-19: a code is an identifier a client switches on, never free text.
const CODE = /^[A-Za-z][A-Za-z0-9_.:-]{0,127}$/

/** Whether `value` can be sent as an error header's value as it is. */
export function isSafeHeaderValue (value: unknown): value is string | readonly string[] {
  const values = typeof value === 'string' ? [value] : value
  return Array.isArray(values) && values.every((v) => typeof v === 'string' && SAFE_HEADER_VALUE.test(v))
}

/**
 * `headers` checked and copied for an error response: names lower-cased,
 * frozen. Throws `GATEHOUSE_CORE_INVALID_HTTP_ERROR` on a name that is not a
 * token or a value that is not tab or visible ASCII, so answering the error
 * cannot throw (D-ERRORS-09). Used by `HttpError` and `createCodedError`.
 */
export function checkedErrorHeaders (headers: ErrorHeaders): ErrorHeaders {
  const checked: Record<string, string | readonly string[]> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!isToken(name)) throw new GATEHOUSE_CORE_INVALID_HTTP_ERROR(`header name ${JSON.stringify(name)} is not a token`)
    if (!isSafeHeaderValue(value)) throw new GATEHOUSE_CORE_INVALID_HTTP_ERROR(`header ${name} has a value that is not tab or visible ASCII`)
    checked[name.toLowerCase()] = value
  }
  return Object.freeze(checked)
}

/**
 * An error that becomes an HTTP response with `status` and `detail` as its
 * message. The detail is written for the caller: it is sent even for 5xx,
 * so never put secrets or internals in it.
 */
export class HttpError extends Error {
  /** The response status, 400–599. */
  readonly statusCode: number
  /** Headers added to the response. */
  readonly headers: ErrorHeaders
  /** Stable code sent as `code` in the body, when given. */
  readonly code: string | undefined
  /**
   * Marks the message as written for the caller (see the errors component).
   * D-ERRORS-01: an HttpError's detail is shown whatever its status.
   */
  readonly expose = true

  constructor (status: number, detail?: string, options: HttpErrorOptions = {}) {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new GATEHOUSE_CORE_INVALID_HTTP_ERROR(`an HttpError status must be an integer from 400 to 599, got ${String(status)}`)
    }
    if (options.code !== undefined && (typeof options.code !== 'string' || !CODE.test(options.code))) {
      throw new GATEHOUSE_CORE_INVALID_HTTP_ERROR(`a code must be letters, digits and _ . : -, starting with a letter, at most 128 (e.g. "ORDER_NOT_FOUND"), got ${JSON.stringify(options.code) ?? String(options.code)}`)
    }
    super(detail ?? STATUS_CODES[status] ?? 'Error', options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'HttpError'
    this.statusCode = status
    this.code = options.code
    this.headers = checkedErrorHeaders(options.headers ?? {})
  }
}
// The errors component answers an HttpError of any copy of this package (D-CORE-05).
brandClass(HttpError, 'core.HttpError.v1')

/**
 * Thrown to answer with a redirect: the errors component sends `status`
 * (default 302) with `Location: location` and no body.
 */
export class Redirect extends Error {
  /** The Location header value. */
  readonly location: string
  /** The response status, 300–399. */
  readonly statusCode: number

  constructor (location: string, status = 302) {
    if (!Number.isInteger(status) || status < 300 || status > 399) {
      throw new GATEHOUSE_CORE_INVALID_HTTP_ERROR(`a Redirect status must be an integer from 300 to 399, got ${String(status)}`)
    }
    if (typeof location !== 'string' || !/^[\x21-\x7e]+$/.test(location)) {
      throw new GATEHOUSE_CORE_INVALID_HTTP_ERROR('a Redirect location must be visible ASCII without spaces (percent-encode it, e.g. with encodeURI)')
    }
    super(`Redirect to ${location}`)
    this.name = 'Redirect'
    this.location = location
    this.statusCode = status
  }
}
brandClass(Redirect, 'core.Redirect.v1')
