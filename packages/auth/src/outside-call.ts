import { STATUS_CODES } from 'node:http'
import { HookTimeout, HttpError, isAnsweredAsItIs, isThenable, safeFacts, settleWithin, thrownStatus, withCause } from '@fastify-gatehouse/core'
import { callbackTimedOut, GATEHOUSE_AUTH_CALLBACK_FAILED, storeUnavailable } from './errors.js'

// Calls out of Gatehouse into code it does not own: a function of the
// options (`basic.validate`, `bearer.auth`) or a store (`UserStore.verify`,
// `LockoutStore.claim`…). Each has a time limit, and what it throws never
// reaches a log or a response as it is: it may hold the credential it was
// given, in any encoding (JSON-escaped, URL-encoded, base64 of user:pass),
// so it is replaced, not scrubbed. D-AUTH-62, D-AUTH-63.

// Core's since the session component bounds its store calls the same way.
export { CALLBACK_TIMEOUT_LIMITS, CALLBACK_TIMEOUT_SECONDS, safeFacts } from '@fastify-gatehouse/core'

/** What a failure of a call out becomes when the thrown value is not a coded error answered as it is (see `isAnsweredAsItIs`). */
export type OtherFailure = (call: string, facts: string, status: number | undefined) => Error

/** How a failed call out is answered. */
export interface FailureOptions {
  /** What a thrown value other than a coded error answered as it is becomes. Default: {@link callbackFailed}. */
  readonly other?: OtherFailure
  /**
   * Whether a thrown coded error keeps its message: yes for a function of
   * the options (the app wrote it for the caller, D-AUTH-45); no for a
   * store, whose message may quote what it was given, unless its code is
   * Gatehouse's own (the Redis and PostgreSQL stores' fixed sentences).
   * Default: false.
   */
  readonly keepMessage?: boolean
}

// Gatehouse's own stores answer fixed sentences under these codes.
const OWN_CODE = /^GATEHOUSE_[A-Z0-9_]+$/

/**
 * A fresh error for a call out that threw: a thrown `HttpError` keeps its
 * status, code and headers, and its message with `keepMessage` or a code
 * of Gatehouse's own (else the status text); another coded error answered
 * as it is (a 4xx, or a 5xx that sets `expose`: Redis's 503) is copied
 * keeping its class, under the same rule for its message (D-CODES-06);
 * anything else becomes `other` (by default 500
 * `GATEHOUSE_AUTH_CALLBACK_FAILED`, or the 5xx status it carried). Either
 * way the only cause is {@link safeFacts}.
 */
export function failedCall (call: string, thrown: unknown, options: FailureOptions = {}): Error {
  const facts = safeFacts(thrown)
  const coded = isHttpError(thrown) ? undefined : codedCopy(call, thrown, facts, options)
  if (coded !== undefined) return coded
  if (isHttpError(thrown)) {
    const keep = options.keepMessage === true || (thrown.code !== undefined && OWN_CODE.test(thrown.code))
    return new HttpError(thrown.statusCode, keep ? thrown.message : undefined, {
      headers: thrown.headers,
      ...(thrown.code === undefined ? {} : { code: thrown.code }),
      cause: new Error(`${call} threw ${facts}`)
    })
  }
  const status = thrown !== null && typeof thrown === 'object' ? thrownStatus(thrown) : undefined
  return (options.other ?? callbackFailed)(call, facts, status)
}

// A coded error answered as it is, copied in its class; undefined for
// anything else, or a value whose fields throw when read (a hostile Proxy).
function codedCopy (call: string, thrown: unknown, facts: string, options: FailureOptions): Error | undefined {
  try {
    if (!isAnsweredAsItIs(thrown)) return undefined
    const coded = thrown as Error & { code?: unknown, statusCode: number }
    const keep = options.keepMessage === true || (typeof coded.code === 'string' && OWN_CODE.test(coded.code))
    return withCause(coded, new Error(`${call} threw ${facts}`), keep ? undefined : STATUS_CODES[coded.statusCode] ?? 'Error')
  } catch {
    return undefined
  }
}

// A thrown Proxy may throw from the instanceof check itself.
function isHttpError (thrown: unknown): thrown is HttpError {
  try {
    return thrown instanceof HttpError
  } catch {
    return false
  }
}

/** 500 `GATEHOUSE_AUTH_CALLBACK_FAILED` (or the 5xx status the thrown error carried), naming the call and the facts. */
export function callbackFailed (call: string, facts: string, status: number | undefined): Error {
  const failed = new GATEHOUSE_AUTH_CALLBACK_FAILED(call, `threw ${facts}`)
  if (status !== undefined && status >= 500) failed.statusCode = status
  return failed
}

/**
 * Calls `fn` (named `call` in the log) with a limit of `ms`: its answer,
 * synchronously when it answers synchronously; or a throw or rejection with
 * a fresh error: 503 `GATEHOUSE_AUTH_CALLBACK_TIMEOUT` when the limit
 * passed (a late answer is ignored), else {@link failedCall}'s.
 */
export function callOut<T> (call: string, ms: number, fn: () => T | PromiseLike<T>, options?: FailureOptions): T | Promise<T> {
  let answer: T | PromiseLike<T>
  let pending: Promise<T> | undefined
  try {
    answer = fn()
    // Inside the try: reading a hostile answer's `then` may throw too.
    if (isThenable(answer)) pending = Promise.resolve(answer)
  } catch (err) {
    throw failedCall(call, err, options)
  }
  if (pending === undefined) return answer as T
  return settleWithin(pending, ms, call).catch((err: unknown): never => {
    if (err instanceof HookTimeout) throw callbackTimedOut(err)
    throw failedCall(call, err, options)
  })
}

/**
 * What a call out that threw leaves as a cause to log: our own timeout as it
 * is, anything else replaced by an error naming only `call` and {@link safeFacts}.
 * D-AUTH-63: the JWT key resolver and `isRevoked` too, whose throw may quote the token.
 */
export function replacedThrow (call: string, thrown: unknown): Error {
  return thrown instanceof HookTimeout ? thrown : new Error(`${call} threw ${safeFacts(thrown)}`)
}

const STORE_FAILURE = Object.freeze({ other: storeUnavailable })

/**
 * {@link callOut} for a call of a user store or an API key store
 * (`UserStore.verify`, `ApiKeyStore.verify`…): a thrown value other than a
 * coded error answered as it is, is 503 `GATEHOUSE_AUTH_STORE_UNAVAILABLE` with `Retry-After`,
 * not the 500 of an app's own function.
 * D-AUTH-78: a store that fails is an outage, as a lockout store's is.
 */
export function storeCall<T> (call: string, ms: number, fn: () => T | PromiseLike<T>): T | Promise<T> {
  return callOut(call, ms, fn, STORE_FAILURE)
}
