import type { Avatar } from './avatar.js'
import { formatChallenge } from './challenge.js'
import { createCodedError } from './coded-error.js'
import { GATEHOUSE_CORE_INVALID_HTTP_ERROR, REAUTHENTICATE } from './errors.js'
import { brandClass } from './process-wide.js'

/** The largest `fresh` a route may ask for: one year, in seconds. */
export const MAX_FRESH_SECONDS = 365 * 24 * 3600

/**
 * Why a `fresh` value is refused, or `undefined` when it is a whole number
 * of seconds from 1 to {@link MAX_FRESH_SECONDS}.
 */
export function freshProblem (value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_FRESH_SECONDS) {
    return `must be a whole number of seconds from 1 to ${MAX_FRESH_SECONDS} (one year)`
  }
  return undefined
}

/**
 * Whether `caller` proved who they are within the last `maxAge` seconds.
 * An anonymous caller, or one whose `authenticatedAt` is unknown (an API
 * key, or an Avatar from a copy of this package that predates the field),
 * never is.
 */
export function isFresh (caller: Avatar | null, maxAge: number, now: number): boolean {
  const at: unknown = caller?.authenticatedAt
  return typeof at === 'number' && now - at <= maxAge * 1000
}

/**
 * The RFC 9470 challenge that asks for a sign-in within `maxAge` seconds:
 * `Bearer realm="…", error="insufficient_user_authentication", error_description="…", max_age="600"`.
 */
export function reauthenticateChallenge (realm: string, maxAge: number): string {
  return formatChallenge('Bearer', {
    realm,
    error: 'insufficient_user_authentication',
    error_description: 'A more recent sign-in is required',
    max_age: String(maxAge)
  })
}

/**
 * The coded class of {@link ReauthenticateError} (declared here, beside its
 * subclass: core's errors.ts cannot import `createCodedError` without an
 * import cycle). `new GATEHOUSE_CORE_REAUTHENTICATE(maxAge, { headers })`.
 */
export const GATEHOUSE_CORE_REAUTHENTICATE = createCodedError<typeof REAUTHENTICATE, [maxAge: number]>(
  REAUTHENTICATE, 'This route needs a sign-in within the last %d seconds; sign in again', 401)

/**
 * 401 `GATEHOUSE_CORE_REAUTHENTICATE`: the route needs a sign-in within
 * `maxAge` seconds (its `fresh` option) and the caller's is older, unknown
 * or absent. Carries the RFC 9470 challenge (realm `gatehouse`); the errors
 * component writes it with its own realm and sends browsers to sign in again.
 * A subclass of the coded class (D-CODES-05), as `AuthRuleSyntaxError` is
 * (D-CODES-04): it adds `maxAge`. D-ERRORS-13.
 */
export class ReauthenticateError extends GATEHOUSE_CORE_REAUTHENTICATE {
  /** The route's `fresh`, in seconds: how recent a sign-in must be. */
  readonly maxAge: number

  constructor (maxAge: number) {
    const problem = freshProblem(maxAge)
    if (problem !== undefined) throw new GATEHOUSE_CORE_INVALID_HTTP_ERROR(`a ReauthenticateError's maxAge ${problem}`)
    super(maxAge, { headers: { 'www-authenticate': reauthenticateChallenge('gatehouse', maxAge) } })
    this.name = 'ReauthenticateError'
    this.maxAge = maxAge
  }
}
// The errors component answers one made by any copy of this package (D-CORE-05).
brandClass(ReauthenticateError, 'core.ReauthenticateError.v1')
