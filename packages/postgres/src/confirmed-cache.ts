import { performance } from 'node:perf_hooks'
import { LruMap } from '@fastify-gatehouse/core'
import { LISTENER_BOUND_MS, type Coverage } from './change-listener.js'
import { POSTGRES_UNAVAILABLE } from './errors.js'

/** How long a cache trusts and serves what it read; see {@link ConfirmedCache}. */
export interface CacheSettings {
  /** Entries holding a value, at most. */
  readonly size: number
  /** Entries holding null (no such row), at most: kept apart, so unknown names never evict known ones. */
  readonly negativeSize: number
  /** ms an entry is trusted while the listener vouches for it. */
  readonly recheckInterval: number
  /** ms after its last confirmation an entry is still served while the database is away. */
  readonly maxStale: number
}

interface Entry<V> {
  readonly value: V | null
  /** The clock's time when the query that read it was sent. */
  readonly fetchedAt: number
}

interface Flight<V> {
  promise: Promise<V | null>
  /** Set when the row changed while the query was out: its answer is returned, not cached. */
  tainted: boolean
}

const isUnavailable = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === POSTGRES_UNAVAILABLE

/**
 * A bounded cache of rows read from PostgreSQL, kept right by change
 * notifications. An entry is served without a query while it is younger
 * than `recheckInterval` AND confirmed within {@link LISTENER_BOUND_MS}:
 * confirmed at its fetch, and after it at each heartbeat the listener
 * answers, provided that listener connection was LISTENing before the
 * fetch. So a change is seen within a second whether the listener is up
 * (its notification drops the entry at once), down, reconnected or silent.
 * Otherwise the row is read again; when that fails for want of the
 * database, the entry is still served until `maxStale` after its last
 * confirmation. Misses for one key share one query.
 * D-POSTGRES-ID2, D-POSTGRES-ID4, D-POSTGRES-ID5.
 */
export class ConfirmedCache<V> {
  readonly #known: LruMap<string, Entry<V>>
  readonly #unknown: LruMap<string, Entry<V>>
  readonly #flights = new Map<string, Flight<V>>()
  readonly #settings: CacheSettings
  readonly #coverage: () => Coverage | undefined
  readonly #now: () => number
  // Set when a read failed for want of the database, cleared by the next
  // one that succeeds: meanwhile a stale entry is served at once (with a
  // refresh behind it) instead of waiting out a connect timeout per request.
  #away = false

  /**
   * @param coverage what the change listener vouches for now
   * @param now the clock of `coverage` (ms, monotonic)
   */
  constructor (settings: CacheSettings, coverage: () => Coverage | undefined, now: () => number = () => performance.now()) {
    this.#settings = settings
    this.#known = new LruMap(settings.size)
    this.#unknown = new LruMap(settings.negativeSize)
    this.#coverage = coverage
    this.#now = now
  }

  /** Entries held: with a value, and null ones. */
  get size (): { known: number, unknown: number } {
    return { known: this.#known.size, unknown: this.#unknown.size }
  }

  #entry (key: string): Entry<V> | undefined {
    return this.#known.get(key) ?? this.#unknown.get(key)
  }

  #confirmedAt (fetchedAt: number): number {
    const coverage = this.#coverage()
    return coverage !== undefined && fetchedAt >= coverage.since ? Math.max(fetchedAt, coverage.heard) : fetchedAt
  }

  #trusted (entry: Entry<V>, now: number): boolean {
    return now - entry.fetchedAt < this.#settings.recheckInterval && now - this.#confirmedAt(entry.fetchedAt) < LISTENER_BOUND_MS
  }

  #servable (entry: Entry<V> | undefined, now: number): entry is Entry<V> {
    return entry !== undefined && now - this.#confirmedAt(entry.fetchedAt) < this.#settings.maxStale
  }

  /**
   * The cached value when it can be trusted now (no query needed): the
   * value or null; `undefined` when the row must be read.
   */
  peek (key: string): V | null | undefined {
    const entry = this.#entry(key)
    return entry !== undefined && this.#trusted(entry, this.#now()) ? entry.value : undefined
  }

  /**
   * The value for `key`: cached when trusted, else read by `load` (one
   * query for all callers waiting on the key). A database that is away
   * rejects with `GATEHOUSE_POSTGRES_UNAVAILABLE` unless a cached entry is
   * still within `maxStale`.
   */
  async get (key: string, load: (key: string) => Promise<V | null>): Promise<V | null> {
    const now = this.#now()
    const entry = this.#entry(key)
    if (entry !== undefined && this.#trusted(entry, now)) return entry.value
    if (this.#away && this.#servable(entry, now)) {
      this.#load(key, load).catch(() => {})
      return entry.value
    }
    try {
      return await this.#load(key, load)
    } catch (err) {
      const still = this.#entry(key)
      if (isUnavailable(err) && this.#servable(still, this.#now())) return still.value
      throw err
    }
  }

  #load (key: string, load: (key: string) => Promise<V | null>): Promise<V | null> {
    const pending = this.#flights.get(key)
    if (pending !== undefined && !pending.tainted) return pending.promise
    const flight: Flight<V> = { promise: undefined as never, tainted: false }
    const fetchedAt = this.#now()
    flight.promise = load(key).then((value) => {
      this.#away = false
      if (!flight.tainted) this.#store(key, { value, fetchedAt })
      return value
    }, (err: unknown) => {
      if (isUnavailable(err)) this.#away = true
      throw err
    }).finally(() => {
      if (this.#flights.get(key) === flight) this.#flights.delete(key)
    })
    this.#flights.set(key, flight)
    return flight.promise
  }

  #store (key: string, entry: Entry<V>): void {
    if (entry.value === null) {
      this.#known.delete(key)
      this.#unknown.set(key, entry)
    } else {
      this.#unknown.delete(key)
      this.#known.set(key, entry)
    }
  }

  /** Forgets `key`; a read of it under way is not cached (it may predate the change). */
  invalidate (key: string): void {
    this.#known.delete(key)
    this.#unknown.delete(key)
    const pending = this.#flights.get(key)
    if (pending !== undefined) pending.tainted = true
  }

  /** Forgets everything. */
  clear (): void {
    for (const [key] of [...this.#known.entries()]) this.#known.delete(key)
    for (const [key] of [...this.#unknown.entries()]) this.#unknown.delete(key)
    for (const flight of this.#flights.values()) flight.tainted = true
  }
}
