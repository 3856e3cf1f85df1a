import type { MaybePromise } from '@fastify-gatehouse/core'

/** A session as stored. Times are milliseconds since the epoch. */
export interface SessionRecord {
  /** Who signed in, or null for an anonymous session (e.g. an OIDC login in progress). */
  identity: string | null
  /** The tags given at sign-in (a `checkIdentity` may replace them per request). */
  tags: string[]
  /** What the app stored; JSON-serialisable values only. */
  data: Record<string, unknown>
  /** When the session began; the absolute lifetime counts from here. */
  createdAt: number
  /** When the session ends unless used again (idle deadline, never past the absolute one). */
  expiresAt: number
  /**
   * Counts the writes of this session: 1 when created, one more on each
   * write (a regenerated id carries it on). Conditional writes compare it.
   */
  version: number
  /** How the identity signed in (`'password'`, `'oidc:<name>'`…), or null when not said. */
  via: string | null
  /** What the sign-in method recorded to re-check later (e.g. a credential stamp), or null. */
  stamp: string | null
  /**
   * When the identity proved who they are, when that is not `createdAt`:
   * an OIDC provider's `auth_time` (earlier than the session); null when
   * not known. Absent: at `createdAt`.
   */
  authenticatedAt?: number | null
  /**
   * The verified claims the identity signed in with (an OIDC provider's
   * id_token claims), JSON data of at most {@link MAX_SESSION_CLAIMS_BYTES};
   * null or absent when there are none (a password sign-in, a record written
   * before this field existed). They may hold personal data: never log them.
   */
  claims?: Readonly<Record<string, unknown>> | null
  /**
   * Where the session was last written from (its owner's "where am I signed
   * in" list), or null/absent when not known (a record written before this
   * field existed, or by an app's own code).
   */
  client?: SessionClient | null
}

/**
 * The most a session's `claims` take as JSON (UTF-8 bytes): what `login`
 * accepts and what every store keeps per signed-in session at most.
 * D-SESSION-26.
 */
export const MAX_SESSION_CLAIMS_BYTES = 4096

/** The client a session was last written from, as shown to its owner. */
export interface SessionClient {
  /** The client address (`request.ip`). */
  readonly address: string
  /** A short label of the user agent, e.g. `Firefox 133 on Linux` (see `userAgentLabel`). */
  readonly agent: string
}

/** A live session of an identity, as {@link SessionStore.listFor} answers. */
export interface SessionEntry {
  /** The store key (the SHA-256 of the session id): never shown to anyone; see `sessionHandle`. */
  readonly key: string
  readonly record: SessionRecord
}

/**
 * The session a write depends on: the key it was loaded from and the
 * version it had then.
 */
export interface SessionWriteCondition {
  readonly key: string
  readonly version: number
}

/**
 * What a conditional {@link SessionStore.set} did: `'written'`; `'gone'`
 * (the session it depends on no longer exists: destroyed, ended or
 * expired; nothing was written); `'conflict'` (another write moved its
 * version, or the target key is taken; nothing was written).
 */
export type SessionWriteResult = 'written' | 'gone' | 'conflict'

/**
 * Where sessions live. Keys are the SHA-256 of the session id (base64url):
 * a store never sees a usable id. A store drops records at `expiresAt`.
 *
 * Writes are conditional, so a destroyed session stays destroyed: a
 * request that loaded a session before it was destroyed can never write it
 * back, and of two requests that loaded the same version only one writes.
 * D-SESSION-06: conditional on the record's own version (clocks cannot order writes) and on existence.
 */
export interface SessionStore {
  /** The record, or null when unknown or expired. */
  get: (key: string) => MaybePromise<SessionRecord | null>
  /**
   * Writes `record` (whose `version` is `loaded.version + 1`, or 1 for a new
   * session) under `key`, atomically, only if:
   * - `loaded` is null (a new session): no record exists under `key`;
   * - `loaded.key === key` (a change): the record under `key` exists and
   *   has `loaded.version`;
   * - `loaded.key !== key` (the id was regenerated): the record under
   *   `loaded.key` exists at `loaded.version` and none under `key`; that
   *   old record is removed in the same step, and `loaded.key` is left
   *   naming `key` for {@link destroy} (never for `get`) until
   *   `record.expiresAt`.
   */
  set: (key: string, record: SessionRecord, loaded: SessionWriteCondition | null) => MaybePromise<SessionWriteResult>
  /**
   * Moves the idle deadline later (never earlier); the version is kept.
   * Unknown, destroyed or expired keys are left alone: a touch never brings
   * a record back.
   */
  touch: (key: string, expiresAt: number) => MaybePromise<void>
  /**
   * Ends the session under `key`. A key a regenerated id moved away from
   * (see {@link set}) ends the session it moved to, following every later
   * move, so a logout or revoke of the old id that races `regenerate()`
   * wins whichever lands first.
   * D-SESSION-28: destroy wins over a regenerated id.
   */
  destroy: (key: string) => MaybePromise<void>
  /** Ends every session of `identity` (log out everywhere); resolves with how many. */
  destroyAllFor: (identity: string) => MaybePromise<number>
  /**
   * The live sessions of `identity`, at most `limit` of them, the most
   * recently used (latest `expiresAt`) first: when there are more, the
   * ones left out are those unused longest. `limit` is a whole number;
   * `Infinity` lists them all, anything below 1 (or NaN) none. Costs
   * O(sessions of that identity), never O(all sessions).
   * D-SESSION-17 (required), D-SESSION-18 (the order).
   */
  listFor: (identity: string, limit: number) => MaybePromise<SessionEntry[]>
}
