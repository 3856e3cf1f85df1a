import createError, { FastifyError } from '@fastify/error'
import { checkedErrorHeaders, HttpError, isSafeHeaderValue, type ErrorHeaders } from './http-error.js'
import { isToken } from './http-syntax.js'

// One error mechanism (D-CODES-05): every error Gatehouse throws is a class
// made by @fastify/error's createError, the registry Fastify's own errors
// come from. A request error that needs more than a code and a status (a
// 429's Retry-After, a 401's WWW-Authenticate, a 503 whose sentence is
// written for the caller) is made here, as a subclass of such a class.

/** How {@link createCodedError} makes a class. */
export interface CodedErrorOptions {
  /** Headers every error of the class carries (`{ 'retry-after': '5' }`); checked when the class is made. */
  readonly headers?: ErrorHeaders
  /**
   * The message is written for the caller: the errors component shows it
   * even with a 5xx status (a 5xx's message is otherwise replaced by its
   * status text, D-ERRORS-01). Default: false.
   */
  readonly expose?: boolean
  /**
   * Whether an error captures a stack trace. Default: true. False for the
   * refusal of a caller's credentials: capturing was most of what a refusal
   * cost, and where it was thrown says nothing (D-AUTH-56); `stack` is then
   * the name and the message.
   */
  readonly stack?: boolean
  /** The base class: `Error` (default), or `TypeError` for misuse. */
  readonly base?: ErrorConstructor
}

/** What one error adds to its class's: more headers (a lockout's Retry-After) and a cause (logged, never sent). */
export interface CodedErrorExtras {
  readonly headers?: ErrorHeaders
  readonly cause?: unknown
}

/** An error of a class made by {@link createCodedError}. */
export interface CodedError<C extends string = string> extends FastifyError {
  readonly code: C
  statusCode: number
  /** Headers the error response carries: the class's, then the error's own. */
  readonly headers: ErrorHeaders
  /** Whether the message is shown even with a 5xx status. */
  readonly expose: boolean
}

/** A class made by {@link createCodedError}: `new X(...messageArguments)`, optionally followed by {@link CodedErrorExtras}. */
export interface CodedErrorClass<C extends string = string, Args extends unknown[] = []> {
  new (...args: Args): CodedError<C>
  new (...args: [...Args, CodedErrorExtras]): CodedError<C>
  readonly prototype: CodedError<C>
}

function isExtras (value: unknown): value is CodedErrorExtras {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && ('headers' in value || 'cause' in value)
}

const NO_HEADERS: ErrorHeaders = Object.freeze({})

/**
 * A coded error class: `createError(code, message, statusCode, base)` of
 * @fastify/error, whose errors also carry `headers` (the class's, then those
 * given to one error) and `expose`. `instanceof` holds across copies of the
 * package that made it (@fastify/error matches on the code).
 *
 * @example
 * const LOCKED = createCodedError<'GATEHOUSE_X_LOCKED', [number]>('GATEHOUSE_X_LOCKED', 'Locked; try again in %d s', 429)
 * throw new LOCKED(30, { headers: { 'retry-after': '30' } })
 */
export function createCodedError<C extends string, Args extends unknown[] = []> (
  code: C, message: string, statusCode: number, options: CodedErrorOptions = {}
): CodedErrorClass<C, Args> {
  const captureStack = options.stack !== false
  const Base = createError(code, message, statusCode, options.base ?? Error, captureStack) as unknown as new (...args: unknown[]) => FastifyError
  const classHeaders = options.headers === undefined ? NO_HEADERS : checkedErrorHeaders(options.headers)
  class Coded extends Base {
    declare readonly code: C
    declare statusCode: number
    readonly headers: ErrorHeaders

    constructor (...args: unknown[]) {
      const extras = isExtras(args.at(-1)) ? args.pop() as CodedErrorExtras : undefined
      if (extras?.cause !== undefined) args.push({ cause: extras.cause })
      super(...args)
      this.headers = extras?.headers === undefined ? classHeaders : Object.freeze({ ...classHeaders, ...checkedErrorHeaders(extras.headers) })
      if (!captureStack) this.stack = `${this.name}: ${this.message}`
    }
  }
  Object.defineProperty(Coded.prototype, 'expose', { value: options.expose === true, writable: false })
  Object.defineProperty(Coded, 'name', { value: code })
  return Coded as unknown as CodedErrorClass<C, Args>
}

// A thrown Proxy may throw from the instanceof check itself.
function isInstance (value: unknown, target: unknown): boolean {
  try {
    return value instanceof (target as new () => unknown)
  } catch {
    return false
  }
}

/**
 * Whether `value` is a coded error: an error of any `createError` class (any
 * copy, any package: Gatehouse's, Fastify's `FST_*`, yours) or an
 * {@link HttpError}.
 */
export function isCodedError (value: unknown): value is Error & { readonly code?: unknown, readonly statusCode?: unknown, readonly headers?: unknown, readonly expose?: unknown } {
  return isInstance(value, HttpError) || isInstance(value, FastifyError)
}

/**
 * The headers an error response carries for `thrown`: a coded error's
 * `headers` (as Fastify's own handler applies them), keeping only names that
 * are tokens and values that are tab or visible ASCII, so sending them
 * cannot throw; none for anything else, such as an HTTP client's error
 * carrying an upstream's Set-Cookie (D-ERRORS-20, amending D-ERRORS-09).
 */
export function responseHeadersOf (thrown: unknown): ErrorHeaders {
  if (!isCodedError(thrown)) return NO_HEADERS
  if (isInstance(thrown, HttpError)) return (thrown as HttpError).headers
  const headers = thrown.headers
  if (headers === null || typeof headers !== 'object') return NO_HEADERS
  const kept: Record<string, string | readonly string[]> = {}
  for (const [name, value] of Object.entries(headers)) {
    const shown = typeof value === 'number' && Number.isFinite(value) ? String(value) : value
    if (isToken(name) && isSafeHeaderValue(shown)) kept[name.toLowerCase()] = shown
  }
  return kept
}

/**
 * Whether the errors component answers `thrown` with its own status, code
 * and message: a coded error with a 4xx status, or a 5xx one that sets
 * `expose` (every `HttpError` does). Anything else is a fault of ours, a
 * plain 500.
 */
export function isAnsweredAsItIs (thrown: unknown): boolean {
  if (!isCodedError(thrown)) return false
  const status = thrown.statusCode
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) return false
  return status < 500 || thrown.expose === true
}

/**
 * A copy of a coded error with `cause` in place of its own, and `message`
 * in place of its message when given: same class (so `instanceof` holds),
 * code, status and headers. For errors thrown by code Gatehouse calls out
 * to (a store), whose cause and message may quote a credential (D-AUTH-63).
 */
export function withCause<E extends Error> (thrown: E, cause: Error, message?: string): E {
  const copy = Object.create(Object.getPrototypeOf(thrown) as object) as Record<string, unknown>
  const source = thrown as unknown as Record<string, unknown>
  for (const key of ['name', 'code', 'statusCode', 'headers', 'expose']) {
    if (Object.hasOwn(thrown, key)) copy[key] = source[key]
  }
  copy.message = message ?? thrown.message
  copy.cause = cause
  copy.stack = `${String(copy.name)}: ${String(copy.message)}`
  return copy as unknown as E
}
