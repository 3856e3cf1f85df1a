import createError from '@fastify/error'
import { createCodedError, type CodedError } from '@fastify-gatehouse/core'
import type { PasswordProblem } from '@fastify-gatehouse/auth'

// Every code of this package; listed in docs/error-codes.md.
//
// One mechanism: every error is a class made by @fastify/error's
// createError. A request error that needs a header (a lockout's
// `Retry-After`) or a 5xx message written for the caller (the 502 of an
// unreachable provider) is made by core's `createCodedError`, and the
// function beside it builds it. The code strings stay exported for
// matching on `err.code`. D-CODES-05 (it supersedes D-CODES-02).

// --- request failures --------------------------------------------------------

/** `POST /_server/login` without identity or password (400). */
export const BAD_LOGIN_REQUEST = 'GATEHOUSE_SERVER_BAD_LOGIN_REQUEST'
export const GATEHOUSE_SERVER_BAD_LOGIN_REQUEST = createCodedError<typeof BAD_LOGIN_REQUEST>(
  BAD_LOGIN_REQUEST, 'identity and password are required', 400)
/** A wrong identity or password, the same for unknown identities (401). */
export const INVALID_LOGIN = 'GATEHOUSE_SERVER_INVALID_LOGIN'
export const GATEHOUSE_SERVER_INVALID_LOGIN = createCodedError<typeof INVALID_LOGIN>(
  INVALID_LOGIN, 'Invalid identity or password', 401)
/** Too many failed sign-ins for the identity or the client address (429, `Retry-After`). */
export const LOCKED = 'GATEHOUSE_SERVER_LOCKED'
export const GATEHOUSE_SERVER_LOCKED = createCodedError<typeof LOCKED, [retryAfter: number]>(
  LOCKED, 'Too many failed sign-ins; try again in %d s', 429)
/** An OIDC callback was refused; the cause is in the `warn` log line (400). */
export const OIDC_FAILED = 'GATEHOUSE_SERVER_OIDC_FAILED'
export const GATEHOUSE_SERVER_OIDC_FAILED = createCodedError<typeof OIDC_FAILED, [detail: string]>(
  OIDC_FAILED, '%s', 400)
/** The OpenID Provider's discovery failed (502); its message is written for the caller. */
export const OIDC_UNAVAILABLE = 'GATEHOUSE_SERVER_OIDC_UNAVAILABLE'
export const GATEHOUSE_SERVER_OIDC_UNAVAILABLE = createCodedError<typeof OIDC_UNAVAILABLE>(
  OIDC_UNAVAILABLE, 'The identity provider cannot be reached', 502, { expose: true })
/** A `/_server` body has a field its route does not take (400). */
export const UNKNOWN_FIELD = 'GATEHOUSE_SERVER_UNKNOWN_FIELD'
export const GATEHOUSE_SERVER_UNKNOWN_FIELD = createCodedError<typeof UNKNOWN_FIELD, [detail: string]>(
  UNKNOWN_FIELD, '%s', 400)
/** A `/_server` form body gives a field twice (400). */
export const DUPLICATE_FIELD = 'GATEHOUSE_SERVER_DUPLICATE_FIELD'
export const GATEHOUSE_SERVER_DUPLICATE_FIELD = createCodedError<typeof DUPLICATE_FIELD, [quotedName: string]>(
  DUPLICATE_FIELD, 'duplicate field %s in body', 400)
/** An admin API body names a tag outside the rule grammar's alphabet (400). */
export const INVALID_TAG = 'GATEHOUSE_SERVER_INVALID_TAG'
export const GATEHOUSE_SERVER_INVALID_TAG = createCodedError<typeof INVALID_TAG, [detail: string]>(
  INVALID_TAG, '%s', 400)
/** The admin API's user or key, or the sign-in method of an OIDC route, does not exist (404). */
export const NOT_FOUND = 'GATEHOUSE_SERVER_NOT_FOUND'
export const GATEHOUSE_SERVER_NOT_FOUND = createCodedError<typeof NOT_FOUND, [what: string]>(
  NOT_FOUND, '%s', 404)
/** A form-encoded body sent to the admin API, which takes JSON only (415): a form is what a cross-site page can post without asking. */
export const FORM_NOT_ACCEPTED = 'GATEHOUSE_SERVER_FORM_NOT_ACCEPTED'
export const GATEHOUSE_SERVER_FORM_NOT_ACCEPTED = createCodedError<typeof FORM_NOT_ACCEPTED>(
  FORM_NOT_ACCEPTED, 'The admin API takes JSON bodies (application/json), not forms', 415)
/** A new password (admin API, account page) breaks a rule of the password policy; the message names the rule (400). */
export const WEAK_PASSWORD = 'GATEHOUSE_SERVER_WEAK_PASSWORD'
export const GATEHOUSE_SERVER_WEAK_PASSWORD = createCodedError<typeof WEAK_PASSWORD, [sentence: string, rule: string]>(
  WEAK_PASSWORD, '%s (rule: %s)', 400)
/** An account endpoint called anonymously (401; browsers go to the login page when the login surface is on). */
export const NOT_SIGNED_IN = 'GATEHOUSE_SERVER_NOT_SIGNED_IN'
export const GATEHOUSE_SERVER_NOT_SIGNED_IN = createCodedError<typeof NOT_SIGNED_IN>(
  NOT_SIGNED_IN, 'Sign in first', 401)
/** An account endpoint for signed-in users called by another kind of caller (API key, token, JWT, Basic) (403). */
export const ACCOUNT_NOT_USER = 'GATEHOUSE_SERVER_ACCOUNT_NOT_USER'
export const GATEHOUSE_SERVER_ACCOUNT_NOT_USER = createCodedError<typeof ACCOUNT_NOT_USER, [detail: string]>(
  ACCOUNT_NOT_USER, '%s', 403)
/** A password change without its fields, or whose confirmation differs (400). */
export const BAD_PASSWORD_CHANGE = 'GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE'
export const GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE = createCodedError<typeof BAD_PASSWORD_CHANGE, [detail: string]>(
  BAD_PASSWORD_CHANGE, '%s', 400)
/** A password change whose new password is the current one (400); checked before the current password, so no attempt is counted. D-PASSWORD-10. */
export const SAME_PASSWORD = 'GATEHOUSE_SERVER_SAME_PASSWORD'
export const GATEHOUSE_SERVER_SAME_PASSWORD = createCodedError<typeof SAME_PASSWORD>(
  SAME_PASSWORD, 'new_password is the current password; choose another', 400)
/** A password change whose current password is wrong (403); counted by the lockout like a failed sign-in. */
export const WRONG_PASSWORD = 'GATEHOUSE_SERVER_WRONG_PASSWORD'
export const GATEHOUSE_SERVER_WRONG_PASSWORD = createCodedError<typeof WRONG_PASSWORD>(
  WRONG_PASSWORD, 'The current password is wrong', 403)
/** A password change overtaken by another change of the same user (a newer password, a disable, a delete) (409); the caller is signed out. */
export const PASSWORD_CONFLICT = 'GATEHOUSE_SERVER_PASSWORD_CONFLICT'
export const GATEHOUSE_SERVER_PASSWORD_CONFLICT = createCodedError<typeof PASSWORD_CONFLICT>(
  PASSWORD_CONFLICT, 'The account was changed at the same time (another new password, or the user was disabled or deleted); sign in again', 409)
/**
 * Any other schema failure of a `/_server` body (400): Fastify's own code,
 * kept so that these bodies fail as on any Fastify route. The class is
 * made with that code, so `instanceof` Fastify's own `FST_ERR_VALIDATION`
 * holds too (@fastify/error matches on the code).
 */
export const VALIDATION = 'FST_ERR_VALIDATION'
const FST_ERR_VALIDATION = createCodedError<typeof VALIDATION, [detail: string]>(VALIDATION, '%s', 400)

export function badLoginRequest (): CodedError {
  return new GATEHOUSE_SERVER_BAD_LOGIN_REQUEST()
}

export function invalidLogin (): CodedError {
  return new GATEHOUSE_SERVER_INVALID_LOGIN()
}

export function lockedOut (retryAfter: number): CodedError {
  return new GATEHOUSE_SERVER_LOCKED(retryAfter, { headers: { 'retry-after': String(retryAfter) } })
}

/** `detail` is one of OidcMethod's fixed sentences (shown on the sign-in-failed page); the cause is logged, never sent. */
export function oidcFailed (detail: string, cause?: unknown): CodedError {
  return new GATEHOUSE_SERVER_OIDC_FAILED(detail, { cause })
}

export function oidcUnavailable (cause: unknown): CodedError {
  return new GATEHOUSE_SERVER_OIDC_UNAVAILABLE({ cause })
}

/** `detail` names the fields (`unknown field "expires" in body`). */
export function unknownField (detail: string): CodedError {
  return new GATEHOUSE_SERVER_UNKNOWN_FIELD(detail)
}

export function duplicateField (name: string): CodedError {
  return new GATEHOUSE_SERVER_DUPLICATE_FIELD(JSON.stringify(name))
}

/** `detail` names the tag (`tags: tag "a b" is not allowed: …`). */
export function tagNotAllowed (detail: string): CodedError {
  return new GATEHOUSE_SERVER_INVALID_TAG(detail)
}

/** The admin API's refusal of a form-encoded body (see {@link FORM_NOT_ACCEPTED}). */
export function formNotAccepted (): CodedError {
  return new GATEHOUSE_SERVER_FORM_NOT_ACCEPTED()
}

/** `what` completes the sentence: `No such user`, `No sign-in method oidc:x`. */
export function notFound (what: string): CodedError {
  return new GATEHOUSE_SERVER_NOT_FOUND(what)
}

/**
 * A new password the policy refuses: its sentence and the rule's name
 * (`… (rule: common)`), which a client may branch on. Never the password.
 * D-PASSWORD-08.
 */
export function weakPassword (problem: PasswordProblem): CodedError {
  return new GATEHOUSE_SERVER_WEAK_PASSWORD(problem.message, problem.rule)
}

export function notSignedIn (): CodedError {
  return new GATEHOUSE_SERVER_NOT_SIGNED_IN()
}

/** `detail` says which callers the endpoint serves. */
export function accountNotUser (detail: string): CodedError {
  return new GATEHOUSE_SERVER_ACCOUNT_NOT_USER(detail)
}

export function badPasswordChange (detail: string): CodedError {
  return new GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE(detail)
}

export function samePassword (): CodedError {
  return new GATEHOUSE_SERVER_SAME_PASSWORD()
}

export function wrongPassword (): CodedError {
  return new GATEHOUSE_SERVER_WRONG_PASSWORD()
}

export function passwordConflict (): CodedError {
  return new GATEHOUSE_SERVER_PASSWORD_CONFLICT()
}

export function validationFailed (detail: string): CodedError {
  return new FST_ERR_VALIDATION(detail)
}

// --- boot errors and misuse ----------------------------------------------------

/**
 * An option of AppServer, of the `_server` app or of a login method is bad;
 * the message starts with its path (`serverApp.oidc.google.issuer: …`).
 * Schema failures (a wrong type, an out-of-range number) are core's
 * `GATEHOUSE_CORE_INVALID_OPTIONS`, as for every component. A store's
 * refusal of a seeded user or key is the `cause`.
 */
export const GATEHOUSE_SERVER_INVALID_OPTIONS = createError<[path: string, problem: string, options?: { cause: unknown }]>(
  'GATEHOUSE_SERVER_INVALID_OPTIONS', '%s: %s', 500, TypeError)

/** `@route` was given a path that does not start with `/`, or decorates a static or private method. */
export const GATEHOUSE_SERVER_INVALID_ROUTE = createError<[string]>(
  'GATEHOUSE_SERVER_INVALID_ROUTE', 'Invalid @route: %s', 500, TypeError)

/** `server.register()` was called once the server was built. */
export const GATEHOUSE_SERVER_REGISTER_TOO_LATE = createError(
  'GATEHOUSE_SERVER_REGISTER_TOO_LATE', 'register() must be called before the server is ready', 500, TypeError)

/**
 * The `_server` app was registered without the session component, or one
 * of its routes ran without a session (a 500: the server is misconfigured).
 */
export const GATEHOUSE_SERVER_SESSION_REQUIRED = createError(
  'GATEHOUSE_SERVER_SESSION_REQUIRED', 'The _server app needs the session component: register it (or turn it on in the chain) first', 500, TypeError)

/** A `_server` route was declared with a body schema that lets unknown fields through; the message names the route. */
export const GATEHOUSE_SERVER_LOOSE_BODY_SCHEMA = createError<[string]>(
  'GATEHOUSE_SERVER_LOOSE_BODY_SCHEMA', '%s: a _server body schema must set additionalProperties: false, so unknown fields are refused', 500, TypeError)

// --- the command line ------------------------------------------------------------

/** The command was called wrongly: exit code 2, with the usage. */
export const GATEHOUSE_SERVER_CLI_USAGE = createError<[string]>(
  'GATEHOUSE_SERVER_CLI_USAGE', '%s', 500, Error)

/** `gatehouse serve --app` cannot load the module, or its default export is not a RoutedApplication. */
export const GATEHOUSE_SERVER_BAD_APP = createError<[string]>(
  'GATEHOUSE_SERVER_BAD_APP', '%s', 500, Error)

/**
 * A CLI command that reads a store (`list`, `passwd`, `revoke`, …) was
 * pointed at a folder holding neither users.json nor keys.json: a typo in
 * `--store` must not read as an empty store. The message names the folder.
 */
export const GATEHOUSE_SERVER_NO_STORE = createError<[string]>(
  'GATEHOUSE_SERVER_NO_STORE',
  'no store at %s (neither users.json nor keys.json is there); check --store or $GATEHOUSE_STORE (`users add` and `keys issue` create a store)', 500, Error)

/**
 * `gatehouse users sessions|signout` without a session store the servers
 * share (Redis or PostgreSQL): the message names the command and where the
 * store can be given.
 */
export const GATEHOUSE_SERVER_NO_SESSION_STORE = createError<[string]>(
  'GATEHOUSE_SERVER_NO_SESSION_STORE', '%s', 500, Error)
