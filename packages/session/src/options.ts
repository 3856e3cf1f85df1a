import { Type } from '@sinclair/typebox'
import { CALLBACK_TIMEOUT_LIMITS, CALLBACK_TIMEOUT_SECONDS, TOKEN_PATTERN, type MaybePromise } from '@fastify-gatehouse/core'
import { GATEHOUSE_SESSION_INVALID_OPTIONS } from './errors.js'
import { MemorySessionStore } from './memory-session-store.js'
import type { SessionRecord, SessionStore } from './session-store.js'

/**
 * Re-checks a signed-in session when it is loaded (every request that
 * carries its cookie): `null` ends the session (the caller is anonymous and
 * the cookie is cleared); otherwise `tags` are the caller's tags for this
 * request. A throw (or rejection) is a 503.
 */
export type CheckIdentity = (identity: string, record: Readonly<SessionRecord>) => MaybePromise<{ readonly tags: readonly string[] } | null>

/** Options of the session component; every key is optional. */
export interface SessionOptions {
  /** Name of the cookie (an RFC 9110 token). Default: `session_id`. */
  cookieName?: string
  /** Send the cookie only over HTTPS. Default: `false`. */
  secure?: boolean
  /** The cookie's SameSite (the spec's spelling of the key). Default: `lax`. `none` needs `secure`. */
  samesite?: 'lax' | 'strict' | 'none'
  /** Seconds a session lives without use (sliding). Default: 3600. */
  idleTtl?: number
  /** Seconds a session lives at most from its start; not shorter than `idleTtl`. Default: 86400. */
  absoluteTtl?: number
  /** Seconds between idle-deadline refreshes by read-only requests. Default: 60. */
  touchInterval?: number
  /** Where sessions live. Default: a new `MemorySessionStore` (one process only). */
  store?: SessionStore
  /**
   * Re-checks each signed-in session against the user's current record on
   * load (see {@link CheckIdentity}). Default: none (the tags given at
   * `login` hold until the session ends). AppServer sets one for sessions
   * signed in by password.
   */
  checkIdentity?: CheckIdentity
  /**
   * Seconds each call of the store (`get`, `set`, `touch`, `destroy`) and of
   * `checkIdentity` may take on a request; past it 503
   * `GATEHOUSE_SESSION_STORE_UNAVAILABLE` (`GATEHOUSE_SESSION_CHECK_UNAVAILABLE`
   * for the check), the late answer ignored; a `touch` past it is skipped.
   * From 0.001 to 300; auth's and the server's option of the same name.
   * Default: 5.
   */
  callbackTimeout?: number
}

/** {@link SessionOptions} with the defaults applied: a store is always there. */
export interface ResolvedSessionOptions {
  readonly cookieName: string
  readonly secure: boolean
  readonly samesite: 'lax' | 'strict' | 'none'
  readonly idleTtl: number
  readonly absoluteTtl: number
  readonly touchInterval: number
  readonly store: SessionStore
  readonly checkIdentity: CheckIdentity | undefined
  readonly callbackTimeout: number
}

/** The defaults, but for `store` (a new `MemorySessionStore` per component). */
export const defaults: Readonly<Omit<ResolvedSessionOptions, 'store' | 'checkIdentity'>> = Object.freeze({
  cookieName: 'session_id',
  secure: false,
  samesite: 'lax',
  idleTtl: 3600,
  absoluteTtl: 86_400,
  touchInterval: 60,
  callbackTimeout: CALLBACK_TIMEOUT_SECONDS
})

const seconds = (max: number) => Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: max }))

export const sessionOptionsSchema = Type.Object({
  cookieName: Type.Optional(Type.String({ pattern: TOKEN_PATTERN })),
  secure: Type.Optional(Type.Boolean()),
  samesite: Type.Optional(Type.Union([Type.Literal('lax'), Type.Literal('strict'), Type.Literal('none')])),
  idleTtl: seconds(31_536_000),
  absoluteTtl: seconds(31_536_000),
  touchInterval: Type.Optional(Type.Number({ minimum: 0, maximum: 86_400 })),
  store: Type.Optional(Type.Unsafe<SessionStore>(Type.Any())),
  checkIdentity: Type.Optional(Type.Unsafe<CheckIdentity>(Type.Any())),
  callbackTimeout: Type.Optional(Type.Number({ minimum: CALLBACK_TIMEOUT_LIMITS.min, maximum: CALLBACK_TIMEOUT_LIMITS.max }))
}, { additionalProperties: false })

const STORE_METHODS = ['get', 'set', 'touch', 'destroy', 'destroyAllFor', 'listFor'] as const

/**
 * Applies the defaults and checks what the schema cannot: SameSite=None
 * needs Secure, the absolute lifetime is not shorter than the idle one, the
 * store is a `SessionStore` and `checkIdentity` a function. Throws
 * `GATEHOUSE_SESSION_INVALID_OPTIONS` naming the option.
 */
export function resolveSessionOptions (options: SessionOptions = {}): ResolvedSessionOptions {
  const resolved = { ...defaults, ...options }
  if (resolved.samesite === 'none' && !resolved.secure) throw new GATEHOUSE_SESSION_INVALID_OPTIONS('samesite "none" needs secure: true (browsers refuse it otherwise)')
  if (resolved.absoluteTtl < resolved.idleTtl) throw new GATEHOUSE_SESSION_INVALID_OPTIONS('absoluteTtl must not be shorter than idleTtl')
  // D-SESSION-13, D-SESSION-17: all six methods, so a partial store fails at boot, not on a request.
  const store = options.store ?? new MemorySessionStore()
  if (STORE_METHODS.some((method) => typeof (store as unknown as Record<string, unknown> | null)?.[method] !== 'function')) {
    throw new GATEHOUSE_SESSION_INVALID_OPTIONS(`store must be a SessionStore (with ${STORE_METHODS.join(', ')})`)
  }
  const limit = resolved.callbackTimeout
  if (typeof limit !== 'number' || !(limit >= CALLBACK_TIMEOUT_LIMITS.min && limit <= CALLBACK_TIMEOUT_LIMITS.max)) {
    throw new GATEHOUSE_SESSION_INVALID_OPTIONS(`callbackTimeout must be a number of seconds from ${CALLBACK_TIMEOUT_LIMITS.min} to ${CALLBACK_TIMEOUT_LIMITS.max}`)
  }
  const check = options.checkIdentity
  if (check !== undefined && typeof check !== 'function') throw new GATEHOUSE_SESSION_INVALID_OPTIONS('checkIdentity must be a function')
  return Object.freeze({ ...resolved, store, checkIdentity: check })
}
