import { parseTags } from '@gatehouse/core'
import { newSessionId, sessionKey } from './session-id.js'
import type { SessionRecord } from './session-store.js'

/** The lifetimes a session is held to, in milliseconds. */
export interface SessionTimes {
  readonly idleTtl: number
  readonly absoluteTtl: number
  /** A read-only request refreshes the idle deadline at most this often. */
  readonly touchInterval: number
}

/** What a request did to its session, for the plugin to carry out. */
export type SessionChange =
  | { readonly kind: 'none' }
  | { readonly kind: 'touch', readonly key: string, readonly expiresAt: number }
  | { readonly kind: 'write', readonly id: string, readonly key: string, readonly record: SessionRecord, readonly newId: boolean, readonly staleKey: string | null }
  | { readonly kind: 'destroy', readonly key: string | null }

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
  #identity: string | null
  #tags: string[]
  #createdAt: number
  #state: 'clean' | 'dirty' | 'destroyed' = 'clean'
  // The id this session will be saved under when it gets a new one
  // (created, logged in, regenerated); known at once so a response can name it.
  #newId: string | null = null

  /** @internal Built by the session component. */
  constructor (times: SessionTimes, now: number, loaded?: { id: string, key: string, record: SessionRecord }) {
    this.#times = times
    this.#now = now
    this.#id = loaded?.id ?? null
    this.#key = loaded?.key ?? null
    this.#record = loaded?.record ?? null
    this.#identity = loaded?.record.identity ?? null
    this.#tags = loaded?.record.tags ?? []
    this.#createdAt = loaded?.record.createdAt ?? now
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

  get (name: string): unknown {
    if (this.#state === 'destroyed') return undefined
    return (this.#data ?? this.#record?.data ?? {})[name]
  }

  /** Stores a JSON-serialisable value; creates the session if there is none. */
  set (name: string, value: unknown): void {
    this.#writable()[name] = value
  }

  delete (name: string): void {
    if (this.get(name) !== undefined) delete this.#writable()[name]
  }

  /**
   * Signs `identity` in: a new session id (the old one dies: fixation
   * defence), empty data, and a fresh absolute lifetime.
   */
  login (identity: string, tags: string | readonly string[] = []): void {
    if (typeof identity !== 'string' || identity === '') throw new TypeError('login needs an identity')
    this.#identity = identity
    this.#tags = parseTags(tags)
    this.#data = {}
    this.#createdAt = this.#now
    this.#newId = newSessionId()
    this.#state = 'dirty'
  }

  /** Ends the session: the store forgets it and the cookie is cleared. */
  logout (): void {
    this.#state = 'destroyed'
    this.#identity = null
    this.#tags = []
    this.#data = null
    this.#newId = null
  }

  /** Keeps the data under a new id (call after any change of privilege). */
  regenerate (): void {
    this.#writable()
    this.#newId = newSessionId()
  }

  #writable (): Record<string, unknown> {
    if (this.#state === 'destroyed') {
      // Writing after logout starts a new, empty session.
      this.#state = 'clean'
      this.#record = null
      this.#key = null
      this.#id = null
      this.#createdAt = this.#now
    }
    this.#data ??= { ...(this.#record?.data ?? {}) }
    if (this.#id === null) this.#newId ??= newSessionId()
    this.#state = 'dirty'
    return this.#data
  }

  /** @internal What to do at the end of the request. */
  change (): SessionChange {
    const { idleTtl, absoluteTtl, touchInterval } = this.#times
    const expiresAt = Math.min(this.#now + idleTtl, this.#createdAt + absoluteTtl)
    if (this.#state === 'destroyed') return { kind: 'destroy', key: this.#key }
    if (this.#state === 'dirty') {
      const record: SessionRecord = { identity: this.#identity, tags: [...this.#tags], data: this.#data ?? {}, createdAt: this.#createdAt, expiresAt }
      if (this.#newId !== null) return { kind: 'write', id: this.#newId, key: sessionKey(this.#newId), record, newId: true, staleKey: this.#key }
      return { kind: 'write', id: this.#id!, key: this.#key!, record, newId: false, staleKey: null }
    }
    if (this.#record !== null && this.#key !== null) {
      const lastTouch = this.#record.expiresAt - idleTtl
      if (this.#now - lastTouch >= touchInterval && expiresAt > this.#record.expiresAt) {
        return { kind: 'touch', key: this.#key, expiresAt }
      }
    }
    return { kind: 'none' }
  }
}
