import { LruMap } from '@fastify-gatehouse/core'
import { GATEHOUSE_SESSION_INVALID_OPTIONS } from './errors.js'
import { ExpirySweep } from './expiry-sweep.js'
import type { SessionEntry, SessionRecord, SessionStore, SessionWriteCondition, SessionWriteResult } from './session-store.js'

/** Options of {@link MemorySessionStore}; every key is optional. */
export interface MemorySessionStoreOptions {
  /**
   * Anonymous sessions (an OIDC sign-in in progress, a visitor's cart) kept
   * at most; the least recently used go first. Default: 10000.
   */
  maxAnonymous?: number
  /**
   * Signed-in sessions kept at most; the least recently used go first.
   * Anonymous sessions never push one out. Default: 10000.
   */
  maxSignedIn?: number
  /**
   * @deprecated The one cap of old: now the default of both
   * `maxAnonymous` and `maxSignedIn` (so up to twice as many sessions in
   * all). Give those two instead.
   */
  max?: number
  /** Clock, for tests. Default: `Date.now`. */
  now?: () => number
}

/** The defaults of {@link MemorySessionStoreOptions}. */
export const memorySessionStoreDefaults = Object.freeze({ maxAnonymous: 10_000, maxSignedIn: 10_000 })

function positiveInteger (value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new GATEHOUSE_SESSION_INVALID_OPTIONS(`MemorySessionStore ${name} must be a positive integer`)
  return value
}

/** The two budgets: each its own option, else the deprecated `max`, else the default. */
function budgets (options: MemorySessionStoreOptions): { maxAnonymous: number, maxSignedIn: number } {
  const max = options.max === undefined ? undefined : positiveInteger(options.max, 'max')
  return {
    maxAnonymous: options.maxAnonymous === undefined ? max ?? memorySessionStoreDefaults.maxAnonymous : positiveInteger(options.maxAnonymous, 'maxAnonymous'),
    maxSignedIn: options.maxSignedIn === undefined ? max ?? memorySessionStoreDefaults.maxSignedIn : positiveInteger(options.maxSignedIn, 'maxSignedIn')
  }
}

/** Freezes a value and everything in it. */
function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}

/**
 * Sessions in this process's memory, in two {@link LruMap}s with budgets
 * of their own: anonymous and signed-in. A flood of anonymous sessions
 * (unauthenticated OIDC starts) pushes out only the least recently used
 * anonymous ones, never a signed-in user; a session moves between the two
 * when it changes kind (login, logout). Expired records are dropped when
 * met, and swept: each write examines a few more of each map (no timer),
 * and `sweep()` examines all.
 *
 * Records are kept as frozen copies and replaced, never changed in
 * place: what `get` handed to a request in flight is a snapshot that no
 * later write or touch alters (and that the request cannot alter either).
 * D-SESSION-09: frozen snapshots; values are changed by setting a new one.
 * D-SESSION-16: two budgets, and the sweep.
 */
export class MemorySessionStore implements SessionStore {
  readonly #anonymous: LruMap<string, SessionRecord>
  readonly #signedIn: LruMap<string, SessionRecord>
  readonly #sweeps: ReadonlyArray<ExpirySweep<SessionRecord>>
  // identity → its session keys, for destroyAllFor; kept right on eviction too.
  readonly #byIdentity = new Map<string, Set<string>>()
  // A key a regenerated id left → the key it moved to and until when (D-SESSION-28).
  readonly #moved: LruMap<string, { to: string, until: number }>
  readonly #now: () => number

  constructor (options: MemorySessionStoreOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new GATEHOUSE_SESSION_INVALID_OPTIONS('MemorySessionStore takes an options object')
    for (const key of Object.keys(options)) {
      // A typo (maxSignedin) must not fall back to a default unseen.
      if (!['max', 'maxAnonymous', 'maxSignedIn', 'now'].includes(key)) throw new GATEHOUSE_SESSION_INVALID_OPTIONS(`MemorySessionStore ${key}: unknown option (known: max, maxAnonymous, maxSignedIn, now)`)
    }
    if (options.now !== undefined && typeof options.now !== 'function') throw new GATEHOUSE_SESSION_INVALID_OPTIONS('MemorySessionStore now must be a function')
    const { maxAnonymous, maxSignedIn } = budgets(options)
    this.#anonymous = new LruMap(maxAnonymous)
    this.#signedIn = new LruMap(maxSignedIn, (key, record) => { this.#unindex(key, record) })
    const drop = (key: string): void => { this.#remove(key) }
    this.#sweeps = [new ExpirySweep(this.#anonymous, drop), new ExpirySweep(this.#signedIn, drop)]
    // One per session at most matters (the newest moves); bounded like the sessions.
    this.#moved = new LruMap(maxAnonymous + maxSignedIn)
    this.#now = options.now ?? Date.now
  }

  /** Records held, both kinds (expired ones not yet swept included). */
  get size (): number {
    return this.#anonymous.size + this.#signedIn.size
  }

  /** Records held of each kind (expired ones not yet swept included). */
  get sizes (): { anonymous: number, signedIn: number } {
    return { anonymous: this.#anonymous.size, signedIn: this.#signedIn.size }
  }

  get (key: string): SessionRecord | null {
    const record = this.#live(key)
    if (record === undefined) return null
    // D-SESSION-14: reads and touches are uses; eviction unindexes.
    this.#mapOf(record).get(key) // a read is a use: the record becomes the most recently used of its kind
    return record
  }

  set (key: string, record: SessionRecord, loaded: SessionWriteCondition | null): SessionWriteResult {
    this.#sweepSome()
    if (loaded === null) {
      if (this.#live(key) !== undefined) return 'conflict'
    } else {
      const current = this.#live(loaded.key)
      if (current === undefined) return 'gone'
      if (current.version !== loaded.version || (loaded.key !== key && this.#live(key) !== undefined)) return 'conflict'
      if (loaded.key !== key) {
        this.#remove(loaded.key)
        this.#moved.set(loaded.key, { to: key, until: record.expiresAt })
      }
    }
    this.#put(key, deepFreeze(structuredClone(record)))
    return 'written'
  }

  touch (key: string, expiresAt: number): void {
    this.#sweepSome()
    const record = this.#live(key)
    // A new frozen object: a request holding the old one keeps its snapshot.
    if (record !== undefined && expiresAt > record.expiresAt) this.#mapOf(record).set(key, Object.freeze({ ...record, expiresAt }))
  }

  /** Ends the session under `key`, or the one a regenerated id moved it to (D-SESSION-28). */
  destroy (key: string): void {
    this.#sweepSome()
    const now = this.#now()
    for (let at: string | undefined = key; at !== undefined;) {
      this.#remove(at)
      const moved = this.#moved.peek(at)
      this.#moved.delete(at)
      at = moved !== undefined && moved.until > now ? moved.to : undefined
    }
  }

  destroyAllFor (identity: string): number {
    const keys = [...(this.#byIdentity.get(identity) ?? [])]
    for (const key of keys) this.#remove(key)
    return keys.length
  }

  /** From the identity index: O(k log k) for the identity's k sessions, whatever the store holds. */
  listFor (identity: string, limit: number): SessionEntry[] {
    const keys = this.#byIdentity.get(identity)
    if (keys === undefined || !(limit >= 1)) return []
    const entries: SessionEntry[] = []
    // A copy: #live drops an expired record, and with it its index entry.
    for (const key of [...keys]) {
      // Not a use: listing a user's sessions must not keep them from eviction.
      const record = this.#live(key)
      if (record !== undefined) entries.push({ key, record })
    }
    // The index is in order of writing, not of use (a touch does not move
    // a key): the latest deadlines are the most recently used (D-SESSION-18).
    entries.sort((a, b) => b.record.expiresAt - a.record.expiresAt)
    return entries.length > limit ? entries.slice(0, Math.floor(limit)) : entries
  }

  /**
   * Drops every expired record now (O(n)) and returns how many. Not needed
   * for correctness (expired records are never handed out, and writes sweep
   * a few at a time); for an app that wants the memory back at once.
   */
  sweep (): number {
    const now = this.#now()
    return this.#sweeps.reduce((dropped, sweep) => dropped + sweep.all(now), 0)
  }

  /** A few more entries of each kind examined (O(1)), on every write. */
  #sweepSome (): void {
    const now = this.#now()
    for (const sweep of this.#sweeps) sweep.step(now)
  }

  #mapOf (record: SessionRecord): LruMap<string, SessionRecord> {
    return record.identity === null ? this.#anonymous : this.#signedIn
  }

  /** The record under `key`, of either kind, expired or not; not a use. */
  #peek (key: string): SessionRecord | undefined {
    return this.#signedIn.peek(key) ?? this.#anonymous.peek(key)
  }

  /** The unexpired record under `key` (an expired one is dropped); does not count as a use. */
  #live (key: string): SessionRecord | undefined {
    const record = this.#peek(key)
    if (record !== undefined && record.expiresAt <= this.#now()) {
      this.#remove(key)
      return undefined
    }
    return record
  }

  #put (key: string, record: SessionRecord): void {
    // Out of whichever map held it: a session that changed kind moves.
    this.#remove(key)
    // May evict the least recently used session of the same kind, which onEvict unindexes.
    this.#mapOf(record).set(key, record)
    if (record.identity !== null) {
      let keys = this.#byIdentity.get(record.identity)
      if (keys === undefined) this.#byIdentity.set(record.identity, keys = new Set())
      keys.add(key)
    }
  }

  #remove (key: string): void {
    const record = this.#peek(key)
    if (record === undefined) return
    this.#mapOf(record).delete(key)
    this.#unindex(key, record)
  }

  #unindex (key: string, record: SessionRecord): void {
    if (record.identity === null) return
    const keys = this.#byIdentity.get(record.identity)
    keys?.delete(key)
    if (keys?.size === 0) this.#byIdentity.delete(record.identity)
  }
}
