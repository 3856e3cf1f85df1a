import { parseTags } from '@fastify-gatehouse/core'
import { GATEHOUSE_SESSION_INVALID_LOGIN } from './errors.js'
import { loginClaims } from './session-claims.js'
import { newSessionId, sessionHandle, sessionKey } from './session-id.js'
import type { SessionClient, SessionRecord, SessionWriteCondition } from './session-store.js'

/** The lifetimes a session is held to, in milliseconds. */
export interface SessionTimes {
  readonly idleTtl: number
  readonly absoluteTtl: number
  /** A read-only request refreshes the idle deadline at most this often. */
  readonly touchInterval: number
}

/** A session write, for the plugin to save (see {@link SessionChange}). */
export interface SessionWrite {
  readonly kind: 'write'
  readonly id: string
  readonly key: string
  readonly record: SessionRecord
  readonly newId: boolean
  /** The stored session this write depends on (null: a new session, written only if its key is free). */
  readonly loaded: SessionWriteCondition | null
  /** A session this request left (by login, or logout then a new write), destroyed once the write is done. */
  readonly staleKey: string | null
}

/** What a request did to its session, for the plugin to carry out. */
export type SessionChange =
  | { readonly kind: 'none' }
  | { readonly kind: 'touch', readonly key: string, readonly expiresAt: number }
  | SessionWrite
  | { readonly kind: 'destroy', readonly key: string | null }

/** How a sign-in came about, kept with the session (see `checkIdentity`). */
export interface SessionLoginOptions {
  /** The sign-in method, e.g. `'password'` or `'oidc:<name>'`. */
  via?: string
  /** A value the method can re-check later, e.g. the user's credential stamp. */
  stamp?: string
  /**
   * When the user proved who they are (ms since the epoch), when that is
   * not now: an OIDC provider's `auth_time`; null when not known (never
   * passes a `fresh` route). Default: now, the session's start. A time
   * after now counts as now.
   */
  authenticatedAt?: number | null
  /**
   * The verified claims the user signed in with (an OIDC provider's id_token
   * claims), kept with the session and given to its avatar on every request
   * (`request.scope.auth.claims`, frozen). JSON data, at most
   * `MAX_SESSION_CLAIMS_BYTES` (4096) as JSON. Default: none (null).
   */
  claims?: Readonly<Record<string, unknown>> | null
}

/**
 * The session of one request, at `request.scope.session`. Lazy: nothing is
 * stored and no cookie is set until something writes to it (`set`,
 * `login`); a request that only reads changes nothing.
 */
export class Session {
  readonly #times: SessionTimes
  readonly #now: number
  #id: string | null
  #key: string | null
  #record: SessionRecord | null
  #data: Record<string, unknown> | null = null
  // The names this request set or deleted: re-applied if another request
  // wrote the session meanwhile (see rebase).
  readonly #changed = new Set<string>()
  #identity: string | null
  #tags: string[]
  #via: string | null
  #stamp: string | null
  #createdAt: number
  // undefined: at #createdAt (a password sign-in, or a record from before the field).
  #authenticatedAt: number | null | undefined
  // Frozen JSON (login's claims, or as loaded); null: none.
  #claims: Readonly<Record<string, unknown>> | null
  // Who is making this request, worked out only when the session is
  // written (a label costs a few regular expressions): for its owner's list.
  readonly #client: (() => SessionClient) | null
  #state: 'clean' | 'dirty' | 'destroyed' = 'clean'
  // The id this session will be saved under when it gets a new one
  // (created, logged in, regenerated); known at once so a response can name it.
  #newId: string | null = null
  // A stored session this request left behind, to destroy once the new one is written.
  #staleKey: string | null = null

  /**
   * @internal Built by the session component. `tags`, when given, replaces
   * the stored tags for this request (the signed-in user's current ones);
   * `client` says who is asking, kept with the session when it is written.
   */
  constructor (times: SessionTimes, now: number, loaded?: { id: string, key: string, record: SessionRecord, tags?: readonly string[] }, client: (() => SessionClient) | null = null) {
    this.#times = times
    this.#now = now
    this.#client = client
    this.#id = loaded?.id ?? null
    this.#key = loaded?.key ?? null
    this.#record = loaded?.record ?? null
    this.#identity = loaded?.record.identity ?? null
    this.#tags = loaded === undefined ? [] : [...(loaded.tags ?? loaded.record.tags)]
    this.#via = loaded?.record.via ?? null
    this.#stamp = loaded?.record.stamp ?? null
    this.#createdAt = loaded?.record.createdAt ?? now
    this.#authenticatedAt = loaded?.record.authenticatedAt
    this.#claims = loaded?.record.claims ?? null
  }

  /** The session's id: the new one after `login`/`regenerate`/a first write, else the current one; null when there is none. */
  get id (): string | null {
    return this.#state === 'destroyed' ? null : this.#newId ?? this.#id
  }

  /** A stored session backs this request. */
  get exists (): boolean {
    return this.#record !== null && this.#state !== 'destroyed'
  }

  /** Who is signed in on this session, or null. */
  get identity (): string | null {
    return this.#state === 'destroyed' ? null : this.#identity
  }

  /** The signed-in caller's tags. */
  get tags (): readonly string[] {
    return this.#state === 'destroyed' ? [] : this.#tags
  }

  /** How the identity signed in (`login`'s `via`), or null. */
  get via (): string | null {
    return this.#state === 'destroyed' ? null : this.#via
  }

  /**
   * When the identity signed in on this session (ms since the epoch): the
   * session's start, since signing in always starts a new one; null when
   * nobody is signed in. The caller's `authenticatedAt` may be earlier
   * (`login`'s `authenticatedAt`: an OIDC provider's `auth_time`).
   */
  get signedInAt (): number | null {
    return this.identity === null ? null : this.#createdAt
  }

  /**
   * The handle of this session (see `sessionHandle`), as its owner's list
   * of sessions shows it; null when there is no session (yet).
   */
  get handle (): string | null {
    if (this.#state === 'destroyed') return null
    if (this.#newId !== null) return sessionHandle(sessionKey(this.#newId))
    return this.#key === null ? null : sessionHandle(this.#key)
  }

  /**
   * A stored value. Values are snapshots: change one by setting a new value
   * (`set('cart', [...cart, item])`); the memory store freezes them.
   */
  get (name: string): unknown {
    if (this.#state === 'destroyed') return undefined
    return (this.#data ?? this.#record?.data ?? {})[name]
  }

  /** Stores a JSON-serialisable value; creates the session if there is none. */
  set (name: string, value: unknown): void {
    this.#writable()[name] = value
    this.#changed.add(name)
  }

  delete (name: string): void {
    if (this.get(name) === undefined) return
    delete this.#writable()[name]
    this.#changed.add(name)
  }

  /**
   * Signs `identity` in: a new session id (the old one dies: fixation
   * defence), empty data, and a fresh absolute lifetime. `options.via` and
   * `options.stamp` are kept with the session for `checkIdentity`;
   * `options.claims` (checked and copied here) for its avatar.
   */
  login (identity: string, tags: string | readonly string[] = [], options: SessionLoginOptions = {}): void {
    if (typeof identity !== 'string' || identity === '') throw new GATEHOUSE_SESSION_INVALID_LOGIN('needs an identity')
    const { via = null, stamp = null, authenticatedAt, claims } = options ?? {}
    if (via !== null && typeof via !== 'string') throw new GATEHOUSE_SESSION_INVALID_LOGIN('options.via must be a string')
    if (stamp !== null && typeof stamp !== 'string') throw new GATEHOUSE_SESSION_INVALID_LOGIN('options.stamp must be a string')
    if (authenticatedAt != null && (typeof authenticatedAt !== 'number' || !Number.isFinite(authenticatedAt))) {
      throw new GATEHOUSE_SESSION_INVALID_LOGIN('options.authenticatedAt must be a finite number of ms since the epoch, or null')
    }
    const kept = loginClaims(claims)
    this.#staleKey ??= this.#key
    this.#record = null
    this.#key = null
    this.#id = null
    this.#identity = identity
    this.#tags = parseTags(tags)
    this.#via = via
    this.#stamp = stamp
    this.#data = {}
    this.#changed.clear()
    this.#createdAt = this.#now
    this.#authenticatedAt = authenticatedAt === undefined ? undefined : authenticatedAt === null ? null : Math.min(authenticatedAt, this.#now)
    this.#claims = kept
    this.#newId = newSessionId()
    this.#state = 'dirty'
  }

  /** Ends the session: the store forgets it and the cookie is cleared. */
  logout (): void {
    this.#state = 'destroyed'
    this.#identity = null
    this.#tags = []
    this.#via = null
    this.#stamp = null
    this.#claims = null
    this.#data = null
    this.#changed.clear()
    this.#newId = null
  }

  /** Keeps the data under a new id (call after any change of privilege). */
  regenerate (): void {
    this.#writable()
    this.#newId = newSessionId()
  }

  #writable (): Record<string, unknown> {
    if (this.#state === 'destroyed') {
      // Writing after logout starts a new, empty session; the old one is
      // still destroyed.
      this.#staleKey ??= this.#key
      this.#state = 'clean'
      this.#record = null
      this.#key = null
      this.#id = null
      this.#createdAt = this.#now
      this.#authenticatedAt = undefined
      this.#claims = null
    }
    this.#data ??= { ...(this.#record?.data ?? {}) }
    if (this.#id === null) this.#newId ??= newSessionId()
    this.#state = 'dirty'
    return this.#data
  }

  /**
   * @internal Another request wrote this session since it was loaded:
   * starts again from `fresh` (its identity, tags, lifetime and data) and
   * re-applies the values this request set or deleted (the last write of
   * a name wins), and answers the write to try next. Only for a session
   * that was loaded and is being written.
   * D-SESSION-15.
   */
  rebase (fresh: SessionRecord): SessionWrite {
    const data: Record<string, unknown> = { ...fresh.data }
    const mine = this.#data ?? {}
    for (const name of this.#changed) {
      if (Object.hasOwn(mine, name)) data[name] = mine[name]
      else delete data[name]
    }
    this.#record = fresh
    this.#identity = fresh.identity
    this.#tags = [...fresh.tags]
    this.#via = fresh.via
    this.#stamp = fresh.stamp
    this.#createdAt = fresh.createdAt
    this.#authenticatedAt = fresh.authenticatedAt
    this.#claims = fresh.claims ?? null
    this.#data = data
    return this.#write(this.#expiresAt())
  }

  #expiresAt (): number {
    return Math.min(this.#now + this.#times.idleTtl, this.#createdAt + this.#times.absoluteTtl)
  }

  // The write of a dirty session (a rebased one is still dirty).
  #write (expiresAt: number): SessionWrite {
    const loaded = this.#record === null || this.#key === null ? null : { key: this.#key, version: this.#record.version }
    const record: SessionRecord = {
      identity: this.#identity,
      tags: [...this.#tags],
      data: this.#data ?? {},
      createdAt: this.#createdAt,
      expiresAt,
      version: loaded === null ? 1 : loaded.version + 1,
      via: this.#via,
      stamp: this.#stamp,
      ...(this.#authenticatedAt === undefined ? {} : { authenticatedAt: this.#authenticatedAt }),
      // Only when there are some: a password or anonymous session stays as it was.
      ...(this.#claims === null ? {} : { claims: this.#claims }),
      client: this.#client?.() ?? this.#record?.client ?? null
    }
    if (this.#newId !== null) return { kind: 'write', id: this.#newId, key: sessionKey(this.#newId), record, newId: true, loaded, staleKey: this.#staleKey }
    return { kind: 'write', id: this.#id!, key: this.#key!, record, newId: false, loaded, staleKey: this.#staleKey }
  }

  /** @internal What to do at the end of the request. */
  change (): SessionChange {
    const { idleTtl, touchInterval } = this.#times
    const expiresAt = this.#expiresAt()
    if (this.#state === 'destroyed') return { kind: 'destroy', key: this.#key ?? this.#staleKey }
    if (this.#state === 'dirty') return this.#write(expiresAt)
    if (this.#record !== null && this.#key !== null) {
      const lastTouch = this.#record.expiresAt - idleTtl
      if (this.#now - lastTouch >= touchInterval && expiresAt > this.#record.expiresAt) {
        return { kind: 'touch', key: this.#key, expiresAt }
      }
    }
    return { kind: 'none' }
  }
}
