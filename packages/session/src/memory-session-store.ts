import { LruMap } from '@fastify-gatehouse/core'
import { GATEHOUSE_SESSION_INVALID_OPTIONS } from './errors.js'
import type { SessionRecord, SessionStore, SessionWriteCondition, SessionWriteResult } from './session-store.js'

/** Options of {@link MemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** Sessions kept at most; the least recently used go first. Default: 10000. */
  max?: number
  /** Clock, for tests. Default: `Date.now`. */
  now?: () => number
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
 * Sessions in this process's memory: bounded by an {@link LruMap} (the
 * least recently used session goes first), expired records dropped when
 * met. Records are kept as frozen copies and replaced, never changed in
 * place: what `get` handed to a request in flight is a snapshot that no
 * later write or touch alters (and that the request cannot alter either).
 * D-SESSION-09: frozen snapshots; values are changed by setting a new one.
 */
export class MemorySessionStore implements SessionStore {
  readonly #records: LruMap<string, SessionRecord>
  // identity → its session keys, for destroyAllFor; kept right on eviction too.
  readonly #byIdentity = new Map<string, Set<string>>()
  readonly #now: () => number

  constructor (options: MemorySessionStoreOptions = {}) {
    const max = options.max ?? 10_000
    if (!Number.isInteger(max) || max < 1) throw new GATEHOUSE_SESSION_INVALID_OPTIONS('MemorySessionStore max must be a positive integer')
    this.#records = new LruMap(max, (key, record) => { this.#unindex(key, record) })
    this.#now = options.now ?? Date.now
  }

  get size (): number {
    return this.#records.size
  }

  get (key: string): SessionRecord | null {
    const record = this.#live(key)
    if (record === undefined) return null
    // D-SESSION-14: reads and touches are uses; eviction unindexes.
    this.#records.get(key) // a read is a use: the record becomes the most recently used
    return record
  }

  set (key: string, record: SessionRecord, loaded: SessionWriteCondition | null): SessionWriteResult {
    if (loaded === null) {
      if (this.#live(key) !== undefined) return 'conflict'
    } else {
      const current = this.#live(loaded.key)
      if (current === undefined) return 'gone'
      if (current.version !== loaded.version || (loaded.key !== key && this.#live(key) !== undefined)) return 'conflict'
      if (loaded.key !== key) this.#remove(loaded.key)
    }
    this.#put(key, deepFreeze(structuredClone(record)))
    return 'written'
  }

  /** The unexpired record under `key` (an expired one is dropped); does not count as a use. */
  #live (key: string): SessionRecord | undefined {
    const record = this.#records.peek(key)
    if (record !== undefined && record.expiresAt <= this.#now()) {
      this.#remove(key)
      return undefined
    }
    return record
  }

  #put (key: string, record: SessionRecord): void {
    this.#remove(key)
    // May evict the least recently used session, which onEvict unindexes.
    this.#records.set(key, record)
    if (record.identity !== null) {
      let keys = this.#byIdentity.get(record.identity)
      if (keys === undefined) this.#byIdentity.set(record.identity, keys = new Set())
      keys.add(key)
    }
  }

  touch (key: string, expiresAt: number): void {
    const record = this.#live(key)
    // A new frozen object: a request holding the old one keeps its snapshot.
    if (record !== undefined && expiresAt > record.expiresAt) this.#records.set(key, Object.freeze({ ...record, expiresAt }))
  }

  destroy (key: string): void {
    this.#remove(key)
  }

  #remove (key: string): void {
    const record = this.#records.peek(key)
    if (record === undefined) return
    this.#records.delete(key)
    this.#unindex(key, record)
  }

  #unindex (key: string, record: SessionRecord): void {
    if (record.identity === null) return
    const keys = this.#byIdentity.get(record.identity)
    keys?.delete(key)
    if (keys?.size === 0) this.#byIdentity.delete(record.identity)
  }

  destroyAllFor (identity: string): number {
    const keys = [...(this.#byIdentity.get(identity) ?? [])]
    for (const key of keys) this.#remove(key)
    return keys.length
  }
}
