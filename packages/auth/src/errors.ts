import createError from '@fastify/error'
import { HttpError, type HttpErrorOptions } from '@fastify-gatehouse/core'

// Every code of this package; listed in docs/error-codes.md.

// --- request failures: 401 with an RFC 7235 challenge --------------------

/** The Authorization header is malformed (no credentials, bad base64, control characters, too long). */
export const BAD_HEADER = 'GATEHOUSE_AUTH_BAD_HEADER'
/** The scheme is not one this server accepts. */
export const UNSUPPORTED_SCHEME = 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME'
/** Basic credentials that match no user, or a wrong password. */
export const INVALID_CREDENTIALS = 'GATEHOUSE_AUTH_INVALID_CREDENTIALS'
/** A bearer token, JWT or API key that is unknown, malformed, expired or revoked. */
export const INVALID_TOKEN = 'GATEHOUSE_AUTH_INVALID_TOKEN'

/**
 * A malformed bearer request (400, RFC 6750 §3.1 `invalid_request`): the
 * scheme is Bearer but the header is empty, too long, has control
 * characters, or the token is not a b64token. The challenge says
 * `error="invalid_request"`; the session is not asked instead.
 */
export const INVALID_REQUEST = 'GATEHOUSE_AUTH_INVALID_REQUEST'

/** The request has more than one `Authorization` header (400): which one a proxy or the app reads is not ours to guess. */
export const DUPLICATE_AUTHORIZATION = 'GATEHOUSE_AUTH_DUPLICATE_AUTHORIZATION'

/**
 * Basic passwords being checked (cache misses: scrypt, a store, your
 * `validate`) already fill `basicConcurrency`: this one is refused at once
 * (503, `Retry-After: 1`) rather than queued.
 */
export const BUSY = 'GATEHOUSE_AUTH_BUSY'

/** A Basic identity or client address locked by `basicLockout` after failed passwords (429, `Retry-After`). */
export const LOCKED = 'GATEHOUSE_AUTH_LOCKED'

/** A JWT could not be checked because its verifier's JWK Set is unreachable, or its `key` resolver failed (503). */
export const KEYS_UNAVAILABLE = 'GATEHOUSE_AUTH_KEYS_UNAVAILABLE'

/** A JWT could not be accepted because its verifier's `isRevoked` hook failed (threw, rejected, no answer within `callbackTimeout`, not a boolean): 503. */
export const REVOCATION_UNAVAILABLE = 'GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE'

/**
 * A call into your code or a store (`basic.validate`, `bearer.auth`,
 * `UserStore.verify`/`standing`, `ApiKeyStore.verify`, the lockout store)
 * gave no answer within `callbackTimeout` (default 5 s): 503 with
 * `Retry-After: 5`; a `basicConcurrency` slot it held is free at once, a
 * late answer is ignored. The log names the call. D-AUTH-62.
 */
export const CALLBACK_TIMEOUT = 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT'

/** The answer to a call out that timed out (see {@link CALLBACK_TIMEOUT}); `cause` names the call and the limit. */
export function callbackTimedOut (cause: Error): HttpError {
  return new HttpError(503, 'Cannot check the credentials now: a check took too long; try again shortly', { code: CALLBACK_TIMEOUT, headers: { 'retry-after': '5' }, cause })
}

/**
 * The lockout store failed (threw something other than an `HttpError`):
 * the attempt cannot be counted, so it is refused (503, `Retry-After: 5`),
 * before the password check as after it. D-LOCKOUT-08.
 */
export const LOCKOUT_UNAVAILABLE = 'GATEHOUSE_AUTH_LOCKOUT_UNAVAILABLE'

/** The failure of a lockout store's call (see {@link LOCKOUT_UNAVAILABLE}); `facts` are safe to log. */
export function lockoutUnavailable (call: string, facts: string): HttpError {
  return new HttpError(503, 'Cannot count sign-in attempts now; try again shortly', { code: LOCKOUT_UNAVAILABLE, headers: { 'retry-after': '5' }, cause: new Error(`${call} threw ${facts}`) })
}

/**
 * A user store or an API key store failed (threw something other than an
 * `HttpError`: a custom store's ECONNREFUSED): the credentials cannot be
 * checked now, an outage like a lockout store's, not a bug of the app's own
 * function (503, `Retry-After: 5`). D-AUTH-78.
 */
export const STORE_UNAVAILABLE = 'GATEHOUSE_AUTH_STORE_UNAVAILABLE'

/** The failure of a user or API key store's call (see {@link STORE_UNAVAILABLE}); `facts` are safe to log. */
export function storeUnavailable (call: string, facts: string): HttpError {
  return new HttpError(503, 'Cannot check the credentials now: the store is unavailable; try again shortly', { code: STORE_UNAVAILABLE, headers: { 'retry-after': '5' }, cause: new Error(`${call} threw ${facts}`) })
}

/**
 * A file store refused a change that would take it past one of its limits
 * (`maxRecords`, `maxFileBytes`): 507 Insufficient Storage, thrown as an
 * `HttpError` so the admin API answers it with this code and the message.
 * Nothing was written. D-AUTH-25.
 */
export const STORE_FULL = 'GATEHOUSE_AUTH_STORE_FULL'

/** The refusal of a change by a full store (see {@link STORE_FULL}); `detail` names the limit. */
export function storeFull (detail: string): HttpError {
  return new HttpError(507, detail, { code: STORE_FULL })
}

/**
 * An {@link HttpError} refusing a request's credentials, built without
 * capturing a stack trace: that capture was most of what a refused
 * credential cost (80–145 k instructions a request against 2.6–16 k for an
 * accepted one), so garbage sent in a loop cost the server far more than
 * the real thing. A refusal is the caller's, not a fault of ours: where it
 * was thrown says nothing (`stack` is then just the name and message).
 * D-AUTH-56.
 */
export function refusal (status: number, detail: string, options: HttpErrorOptions): HttpError {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return new HttpError(status, detail, options)
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** A 401 carrying `challenges` as `WWW-Authenticate`. */
export function unauthorized (code: string, detail: string, challenges: string | readonly string[]): HttpError {
  const value = typeof challenges === 'string' || challenges.length !== 1 ? challenges : challenges[0]!
  return refusal(401, detail, { code, headers: { 'www-authenticate': value } })
}

// --- boot errors ------------------------------------------------------------

/** A basic entry without password or passwordHash, a bearer entry without token, and the like. */
export const GATEHOUSE_AUTH_INVALID_CONFIG = createError<[string, string]>(
  'GATEHOUSE_AUTH_INVALID_CONFIG', '%s: %s', 500, TypeError)

/**
 * A function of the options (`basic.validate`, `bearer.auth`) or a user or
 * key store threw something other than an `HttpError`, or a function
 * answered something other than an Avatar, tags or null (500, or the 5xx
 * status the thrown error carried). The message names the call and only
 * the thrown value's class, status and code: never its message, stack or
 * fields, which may hold the credential (D-AUTH-63).
 */
export const GATEHOUSE_AUTH_CALLBACK_FAILED = createError<[where: string, problem: string, options?: { cause: Error }]>(
  'GATEHOUSE_AUTH_CALLBACK_FAILED', '%s %s', 500, Error)

/** A stored password hash that is not `scrypt$N,r,p$salt$hash` with sane parameters. */
export const GATEHOUSE_AUTH_INVALID_PASSWORD_HASH = createError<[string]>(
  'GATEHOUSE_AUTH_INVALID_PASSWORD_HASH', 'Invalid password hash: %s', 500, TypeError)

/** A store file that cannot be read, parsed or locked; the message names the file (and the line, for a journal). */
export const GATEHOUSE_AUTH_STORE_FILE = createError<[string, string]>(
  'GATEHOUSE_AUTH_STORE_FILE', 'Store file %s: %s', 500, Error)

/** A store operation with bad input (unknown id, duplicate identity, bad label or tags). */
export const GATEHOUSE_AUTH_STORE_INPUT = createError<[string]>(
  'GATEHOUSE_AUTH_STORE_INPUT', '%s', 400)
