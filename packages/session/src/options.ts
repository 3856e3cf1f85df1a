import { Type } from '@sinclair/typebox'
import type { MaybePromise, SessionRecord, SessionStore } from './session-store.js'

/**
 * Re-checks a signed-in session when it is loaded (every request that
 * carries its cookie): `null` ends the session (the caller is anonymous and
 * the cookie is cleared); otherwise `tags` are the caller's tags for this
 * request. A throw (or rejection) is a 503.
 */
export type CheckIdentity = (identity: string, record: Readonly<SessionRecord>) => MaybePromise<{ readonly tags: readonly string[] } | null>

/** Options of the session component; every key is optional. */
export interface SessionOptions {
  /** Name of the cookie. Default: `session_id`. */
  cookieName?: string
  /** Send the cookie only over HTTPS. Default: `false`. */
  secure?: boolean
  /** The cookie's SameSite (the spec's spelling of the key). Default: `lax`. `none` needs `secure`. */
  samesite?: 'lax' | 'strict' | 'none'
  /** Seconds a session lives without use (sliding). Default: 3600. */
  idleTtl?: number
  /** Seconds a session lives at most from its start. Default: 86400. */
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
}

export interface ResolvedSessionOptions extends Required<Omit<SessionOptions, 'store' | 'checkIdentity'>> {
  store: SessionStore | undefined
  checkIdentity: CheckIdentity | undefined
}

export const defaults: Readonly<Omit<ResolvedSessionOptions, 'store' | 'checkIdentity'>> = Object.freeze({
  cookieName: 'session_id',
  secure: false,
  samesite: 'lax',
  idleTtl: 3600,
  absoluteTtl: 86_400,
  touchInterval: 60
})

const seconds = (max: number) => Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: max }))

export const sessionOptionsSchema = Type.Object({
  cookieName: Type.Optional(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" })),
  secure: Type.Optional(Type.Boolean()),
  samesite: Type.Optional(Type.Union([Type.Literal('lax'), Type.Literal('strict'), Type.Literal('none')])),
  idleTtl: seconds(31_536_000),
  absoluteTtl: seconds(31_536_000),
  touchInterval: Type.Optional(Type.Number({ minimum: 0, maximum: 86_400 })),
  store: Type.Optional(Type.Unsafe<SessionStore>(Type.Any())),
  checkIdentity: Type.Optional(Type.Unsafe<CheckIdentity>(Type.Any()))
}, { additionalProperties: false })

export function resolveSessionOptions (options: SessionOptions): ResolvedSessionOptions {
  return { ...defaults, ...options, store: options.store, checkIdentity: options.checkIdentity }
}
