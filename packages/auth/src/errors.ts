import createError from '@fastify/error'
import { createCodedError, type CodedError, type ErrorHeaders } from '@fastify-gatehouse/core'

// Every code of this package; listed in docs/error-codes.md. Each is a class
// of its own (D-CODES-05); the code strings stay exported for matching on
// `err.code`.

// --- request failures: 401 with an RFC 7235 challenge --------------------

/** The Authorization header is malformed (no credentials, bad base64, control characters, too long). */
export const BAD_HEADER = 'GATEHOUSE_AUTH_BAD_HEADER'
/** The scheme is not one this server accepts. */
export const UNSUPPORTED_SCHEME = 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME'
/** Basic credentials that match no user, or a wrong password. */
export const INVALID_CREDENTIALS = 'GATEHOUSE_AUTH_INVALID_CREDENTIALS'
/** A bearer token, JWT or API key that is unknown, malformed, expired or revoked. */
export const INVALID_TOKEN = 'GATEHOUSE_AUTH_INVALID_TOKEN'

// D-AUTH-56: a refusal captures no stack trace: that capture was most of
// what a refused credential cost (80–145 k instructions a request against
// 2.6–16 k for an accepted one), so garbage sent in a loop cost the server
// far more than the real thing. A refusal is the caller's, not a fault of
// ours: where it was thrown says nothing (`stack` is the name and message).
const REFUSAL = Object.freeze({ stack: false })

/** 401 {@link BAD_HEADER}; the challenges are given to each error. */
export const GATEHOUSE_AUTH_BAD_HEADER = createCodedError<typeof BAD_HEADER, [detail: string]>(BAD_HEADER, '%s', 401, REFUSAL)
/** 401 {@link UNSUPPORTED_SCHEME}; the challenges are those of the accepted schemes. */
export const GATEHOUSE_AUTH_UNSUPPORTED_SCHEME = createCodedError<typeof UNSUPPORTED_SCHEME, [detail: string]>(UNSUPPORTED_SCHEME, '%s', 401, REFUSAL)
/** 401 {@link INVALID_CREDENTIALS}, with the Basic challenge. */
export const GATEHOUSE_AUTH_INVALID_CREDENTIALS = createCodedError<typeof INVALID_CREDENTIALS, [detail: string]>(INVALID_CREDENTIALS, '%s', 401, REFUSAL)
/** 401 {@link INVALID_TOKEN}, with the bearer challenge `error="invalid_token"`. */
export const GATEHOUSE_AUTH_INVALID_TOKEN = createCodedError<typeof INVALID_TOKEN, [detail: string]>(INVALID_TOKEN, '%s', 401, REFUSAL)

/**
 * A malformed bearer request (400, RFC 6750 §3.1 `invalid_request`): the
 * scheme is Bearer but the header is empty, too long, has control
 * characters, or the token is not a b64token. The challenge says
 * `error="invalid_request"`; the session is not asked instead.
 */
export const INVALID_REQUEST = 'GATEHOUSE_AUTH_INVALID_REQUEST'
/** 400 {@link INVALID_REQUEST}. */
export const GATEHOUSE_AUTH_INVALID_REQUEST = createCodedError<typeof INVALID_REQUEST, [detail: string]>(INVALID_REQUEST, '%s', 400, REFUSAL)

/** The request has more than one `Authorization` header (400): which one a proxy or the app reads is not ours to guess. */
export const DUPLICATE_AUTHORIZATION = 'GATEHOUSE_AUTH_DUPLICATE_AUTHORIZATION'
/** 400 {@link DUPLICATE_AUTHORIZATION}. */
export const GATEHOUSE_AUTH_DUPLICATE_AUTHORIZATION = createCodedError<typeof DUPLICATE_AUTHORIZATION>(
  DUPLICATE_AUTHORIZATION, 'Send one Authorization header, not several', 400, REFUSAL)

/**
 * Basic passwords being checked (cache misses: scrypt, a store, your
 * `validate`) already fill `basicConcurrency`: this one is refused at once
 * (503, `Retry-After: 1`) rather than queued.
 */
export const BUSY = 'GATEHOUSE_AUTH_BUSY'
/** 503 {@link BUSY}. */
export const GATEHOUSE_AUTH_BUSY = createCodedError<typeof BUSY>(
  BUSY, 'Too many sign-ins are being checked at once; try again shortly', 503, { ...REFUSAL, expose: true, headers: { 'retry-after': '1' } })

/** A Basic identity or client address locked by `basicLockout` after failed passwords (429, `Retry-After`). */
export const LOCKED = 'GATEHOUSE_AUTH_LOCKED'
/** 429 {@link LOCKED}: `new GATEHOUSE_AUTH_LOCKED(seconds)` (use {@link lockedOut}, which sets `Retry-After`). */
export const GATEHOUSE_AUTH_LOCKED = createCodedError<typeof LOCKED, [retryAfter: number]>(
  LOCKED, 'Too many failed sign-ins; try again in %d s', 429, REFUSAL)

/** The refusal of a locked identity or address, with `Retry-After: retryAfter`. */
export function lockedOut (retryAfter: number): CodedError {
  return new GATEHOUSE_AUTH_LOCKED(retryAfter, { headers: { 'retry-after': String(retryAfter) } })
}

/** A JWT could not be checked because its verifier's JWK Set is unreachable, or its `key` resolver failed (503). */
export const KEYS_UNAVAILABLE = 'GATEHOUSE_AUTH_KEYS_UNAVAILABLE'
/** 503 {@link KEYS_UNAVAILABLE}, `Retry-After: 30`; the cause is logged, never sent. */
export const GATEHOUSE_AUTH_KEYS_UNAVAILABLE = createCodedError<typeof KEYS_UNAVAILABLE>(
  KEYS_UNAVAILABLE, 'Cannot verify the token now: the signing keys are unavailable', 503, { expose: true, headers: { 'retry-after': '30' } })

/** A JWT could not be accepted because its verifier's `isRevoked` hook failed (threw, rejected, no answer within `callbackTimeout`, not a boolean): 503. */
export const REVOCATION_UNAVAILABLE = 'GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE'
/** 503 {@link REVOCATION_UNAVAILABLE}, `Retry-After: 30`; the cause is logged, never sent. */
export const GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE = createCodedError<typeof REVOCATION_UNAVAILABLE>(
  REVOCATION_UNAVAILABLE, 'Cannot verify the token now: the revocation check failed', 503, { expose: true, headers: { 'retry-after': '30' } })

/**
 * A call into your code or a store (`basic.validate`, `bearer.auth`,
 * `UserStore.verify`/`standing`, `ApiKeyStore.verify`, the lockout store)
 * gave no answer within `callbackTimeout` (default 5 s): 503 with
 * `Retry-After: 5`; a `basicConcurrency` slot it held is free at once, a
 * late answer is ignored. The log names the call. D-AUTH-62.
 */
export const CALLBACK_TIMEOUT = 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT'
/** 503 {@link CALLBACK_TIMEOUT}; `cause` names the call and the limit. */
export const GATEHOUSE_AUTH_CALLBACK_TIMEOUT = createCodedError<typeof CALLBACK_TIMEOUT>(
  CALLBACK_TIMEOUT, 'Cannot check the credentials now: a check took too long; try again shortly', 503, { expose: true, headers: { 'retry-after': '5' } })

/** The answer to a call out that timed out (see {@link CALLBACK_TIMEOUT}); `cause` names the call and the limit. */
export function callbackTimedOut (cause: Error): CodedError {
  return new GATEHOUSE_AUTH_CALLBACK_TIMEOUT({ cause })
}

/**
 * The lockout store failed (threw something other than a coded error it
 * means to be answered): the attempt cannot be counted, so it is refused
 * (503, `Retry-After: 5`), before the password check as after it. D-LOCKOUT-08.
 */
export const LOCKOUT_UNAVAILABLE = 'GATEHOUSE_AUTH_LOCKOUT_UNAVAILABLE'
/** 503 {@link LOCKOUT_UNAVAILABLE}. */
export const GATEHOUSE_AUTH_LOCKOUT_UNAVAILABLE = createCodedError<typeof LOCKOUT_UNAVAILABLE>(
  LOCKOUT_UNAVAILABLE, 'Cannot count sign-in attempts now; try again shortly', 503, { expose: true, headers: { 'retry-after': '5' } })

/** The failure of a lockout store's call (see {@link LOCKOUT_UNAVAILABLE}); `facts` are safe to log. */
export function lockoutUnavailable (call: string, facts: string): CodedError {
  return new GATEHOUSE_AUTH_LOCKOUT_UNAVAILABLE({ cause: new Error(`${call} threw ${facts}`) })
}

/**
 * A user store or an API key store failed (threw something other than a
 * coded error it means to be answered: a custom store's ECONNREFUSED): the
 * credentials cannot be checked now, an outage like a lockout store's, not a
 * bug of the app's own function (503, `Retry-After: 5`). D-AUTH-78.
 */
export const STORE_UNAVAILABLE = 'GATEHOUSE_AUTH_STORE_UNAVAILABLE'
/** 503 {@link STORE_UNAVAILABLE}. */
export const GATEHOUSE_AUTH_STORE_UNAVAILABLE = createCodedError<typeof STORE_UNAVAILABLE>(
  STORE_UNAVAILABLE, 'Cannot check the credentials now: the store is unavailable; try again shortly', 503, { expose: true, headers: { 'retry-after': '5' } })

/** The failure of a user or API key store's call (see {@link STORE_UNAVAILABLE}); `facts` are safe to log. */
export function storeUnavailable (call: string, facts: string): CodedError {
  return new GATEHOUSE_AUTH_STORE_UNAVAILABLE({ cause: new Error(`${call} threw ${facts}`) })
}

/**
 * A file store refused a change that would take it past one of its limits
 * (`maxRecords`, `maxFileBytes`): 507 Insufficient Storage, its message
 * written for the caller, so the admin API answers it with this code and
 * the message. Nothing was written. D-AUTH-25.
 */
export const STORE_FULL = 'GATEHOUSE_AUTH_STORE_FULL'
/** 507 {@link STORE_FULL}; the detail names the limit. */
export const GATEHOUSE_AUTH_STORE_FULL = createCodedError<typeof STORE_FULL, [detail: string]>(STORE_FULL, '%s', 507, { expose: true })

/** The refusal of a change by a full store (see {@link STORE_FULL}); `detail` names the limit. */
export function storeFull (detail: string): CodedError {
  return new GATEHOUSE_AUTH_STORE_FULL(detail)
}

/** The classes of a request's refused credentials, by code. */
const REFUSALS = {
  [BAD_HEADER]: GATEHOUSE_AUTH_BAD_HEADER,
  [UNSUPPORTED_SCHEME]: GATEHOUSE_AUTH_UNSUPPORTED_SCHEME,
  [INVALID_CREDENTIALS]: GATEHOUSE_AUTH_INVALID_CREDENTIALS,
  [INVALID_TOKEN]: GATEHOUSE_AUTH_INVALID_TOKEN,
  [INVALID_REQUEST]: GATEHOUSE_AUTH_INVALID_REQUEST
} as const

/** A code of {@link REFUSALS}. */
export type RefusalCode = keyof typeof REFUSALS

/** The refusal of a request's credentials under `code`, carrying `headers` (its challenge). */
export function refusal (code: RefusalCode, detail: string, headers: ErrorHeaders): CodedError {
  return new REFUSALS[code](detail, { headers })
}

/** A 401 carrying `challenges` as `WWW-Authenticate`. */
export function unauthorized (code: Exclude<RefusalCode, typeof INVALID_REQUEST>, detail: string, challenges: string | readonly string[]): CodedError {
  const value = typeof challenges === 'string' || challenges.length !== 1 ? challenges : challenges[0]!
  return refusal(code, detail, { 'www-authenticate': value })
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
