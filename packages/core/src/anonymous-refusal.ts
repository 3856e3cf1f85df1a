import { createCodedError } from './coded-error.js'
import { GATEHOUSE_CORE_FORBIDDEN, GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED, UNAUTHENTICATED } from './errors.js'
import { isToken } from './http-syntax.js'
import type { RouteRecord } from './route-record.js'

/**
 * The 401 of `GATEHOUSE_CORE_UNAUTHENTICATED` (errors.ts): the message names
 * the schemes, each error carries its `WWW-Authenticate` challenges. No
 * stack trace: a refusal is answered often and where it was made says
 * nothing (D-AUTH-56). Here, not in errors.ts, because a coded error class
 * builds on http-error.ts, which errors.ts serves (D-CODES-10).
 */
export const GATEHOUSE_CORE_UNAUTHENTICATED = createCodedError<typeof UNAUTHENTICATED, [string]>(
  UNAUTHENTICATED, '%s', 401, { stack: false })

/**
 * 403 `GATEHOUSE_CORE_FORBIDDEN`, with `message` when given (the default
 * reads `Insufficient permissions for this route`). One class whoever is
 * refused, anonymous or signed in, so that `instanceof` finds every one.
 * D-CORE-15.
 */
export function forbidden (message?: string): Error {
  const error = new GATEHOUSE_CORE_FORBIDDEN()
  if (message !== undefined) error.message = message
  return error
}

/** `Basic`, `Basic or Bearer`, `Basic, Bearer or Token`. */
function orList (names: readonly string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}`
}

/** `Sign in with Basic or Bearer credentials`: what a refusal tells an anonymous caller (schemes as challenges write them; at least one). */
export function signInWith (schemes: readonly string[]): string {
  return `Sign in with ${orList(schemes)} credentials`
}

// Longest scheme name echoed in a message: the registered ones are at most
// 13 characters (`Negotiate`, `SCRAM-SHA-256`); longer ones are not named.
const MAX_SCHEME_SHOWN = 20

/**
 * The scheme of an `Authorization` value as sent (`Basic`), to name in a
 * message: only when credentials follow it after a space and it is a token
 * of at most 20 characters; else `undefined`. A value without a space is a
 * bare credential (a token sent without its scheme), never a scheme name.
 * D-AUTH-79: a credential sent without a scheme is never echoed or logged.
 */
export function shownScheme (authorization: string): string | undefined {
  const trimmed = authorization.trim()
  const space = trimmed.indexOf(' ')
  if (space === -1) return undefined
  const scheme = trimmed.slice(0, space)
  return scheme.length <= MAX_SCHEME_SHOWN && isToken(scheme) ? scheme : undefined
}

/**
 * The refusal of an anonymous caller by a route rule, from the route's
 * record (`undefined` for a scope's 404 handler). Without an authentication
 * component in the route's scope: 403 `GATEHOUSE_CORE_FORBIDDEN` as always,
 * or, when the request carried an `Authorization` header (which nothing
 * read), 403 `GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED` saying so. With one
 * (`declareRouteChallenges`): its message names the schemes (`Sign in with
 * Basic or Bearer credentials`), and with `challengeAnonymous` (the
 * route's, else the component's) it is a 401 `GATEHOUSE_CORE_UNAUTHENTICATED`
 * carrying its challenges.
 * D-RULES-11, D-AUTH-73.
 */
export function anonymousRefusal (record: Pick<RouteRecord, 'accepts' | 'challengeAnonymous'> | undefined, authorization?: string): Error {
  const accepts = record?.accepts
  if (accepts === undefined) {
    if (authorization === undefined) return forbidden()
    // D-AUTH-73: a 403, as DESIGN §5 wants without auth; a 401 would need a challenge for a scheme the route accepts, and there is none.
    const scheme = shownScheme(authorization)
    return new GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED(`${scheme === undefined ? 'The Authorization header' : `The ${scheme} scheme`} is not accepted here: this route reads no Authorization header; sign in for a session cookie instead`)
  }
  const message = signInWith(accepts.schemes)
  if (record?.challengeAnonymous === true && accepts.challenges.length > 0) {
    return new GATEHOUSE_CORE_UNAUTHENTICATED(message, { headers: { 'www-authenticate': accepts.challenges.length === 1 ? accepts.challenges[0]! : [...accepts.challenges] } })
  }
  return forbidden(message)
}
