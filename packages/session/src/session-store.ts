/** A session as stored. Times are milliseconds since the epoch. */
export interface SessionRecord {
  /** Who signed in, or null for an anonymous session (e.g. an OIDC login in progress). */
  identity: string | null
  tags: string[]
  /** What the app stored; JSON-serialisable values only. */
  data: Record<string, unknown>
  /** When the session began; the absolute lifetime counts from here. */
  createdAt: number
  /** When the session ends unless used again (idle deadline, never past the absolute one). */
  expiresAt: number
}

/** A value that may be returned now or later: the memory store answers synchronously. */
export type MaybePromise<T> = T | Promise<T>

/**
 * Where sessions live. Keys are the SHA-256 of the session id (base64url):
 * a store never sees a usable id. A store drops records at `expiresAt`.
 */
export interface SessionStore {
  get: (key: string) => MaybePromise<SessionRecord | null>
  set: (key: string, record: SessionRecord) => MaybePromise<void>
  /** Moves the idle deadline; unknown keys are ignored. */
  touch: (key: string, expiresAt: number) => MaybePromise<void>
  destroy: (key: string) => MaybePromise<void>
  /** Ends every session of `identity` (log out everywhere); resolves with how many. */
  destroyAllFor: (identity: string) => MaybePromise<number>
}
