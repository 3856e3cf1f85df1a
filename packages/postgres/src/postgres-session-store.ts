import { recordFromStored, storedRecordJson, type SessionEntry, type SessionRecord, type SessionStore, type SessionWriteCondition, type SessionWriteResult } from '@fastify-gatehouse/session'
import { GATEHOUSE_POSTGRES_INVALID_OPTIONS } from './errors.js'
import { ExpirySweeper, resolveSweepOptions, SWEEP_KEYS, type SweepOptions } from './expiry-sweep.js'
import type { PostgresConnection, PostgresStoreOptions } from './options.js'
import { PostgresStore, type ConnectOptions } from './postgres-store.js'
import { sessionStatements, type SessionStatements } from './session-statements.js'
import { asText, run } from './statement.js'

/** Options of {@link PostgresSessionStore}: a connection, the shared options, the sweep, and a clock. */
export type PostgresSessionStoreOptions = PostgresConnection & PostgresStoreOptions & ConnectOptions & SweepOptions & {
  /** Clock (ms since the epoch) that expiry is judged by; for tests. Default: `Date.now`. */
  now?: () => number
}

interface SessionRow { record: unknown, expires_at: string, version: number }
interface DeletedRow { version: number, moved_to: string | null }

const UNIQUE_VIOLATION = '23505'
// A write that touched nothing while the probe finds the row live at the
// loaded version means it moved and came back between the two (a deleted
// key written anew): tried again this many times, then a conflict.
const WRITE_TRIES = 3

/** A record from its row; null when the JSON is not a record (written by hand or by something else). */
function fromRow (row: SessionRow): SessionRecord | null {
  return recordFromStored(row.record, Number(row.expires_at), row.version)
}

/**
 * Sessions in PostgreSQL (`<schema>.<prefix>sessions`), shared by every
 * server instance that uses the same database, schema and prefix. A row
 * holds the record's JSON, its deadline and its version; keys are the
 * SHA-256 of the session id, as the session component hands them over.
 * Reads and the conditional writes are one statement each (a regenerated
 * id too: its row moves to the new key in place); expired rows count as
 * absent everywhere and are swept in batches. A database that is away
 * rejects with `GATEHOUSE_POSTGRES_UNAVAILABLE` (the session component
 * answers 503).
 */
export class PostgresSessionStore extends PostgresStore implements SessionStore {
  readonly #sql: SessionStatements
  readonly #now: () => number
  readonly #sweeper: ExpirySweeper

  /**
   * Opens the store and checks the schema: rejects with
   * `GATEHOUSE_POSTGRES_INVALID_OPTIONS` for bad options,
   * `GATEHOUSE_POSTGRES_CONNECT` when PostgreSQL does not answer within
   * `connectTimeout`, and `…_SCHEMA_BEHIND` / `…_SCHEMA_AHEAD` for a schema
   * of another version (unless `migrate: true`), so a server fails at boot,
   * not on a request. Then starts the sweep timer.
   */
  static async connect (options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
    const store = await PostgresStore.connected(new PostgresSessionStore(options), options)
    store.#sweeper.start()
    return store
  }

  private constructor (options: PostgresSessionStoreOptions) {
    super(options, 'PostgresSessionStore', [...SWEEP_KEYS, 'now'])
    if (options.now !== undefined && typeof options.now !== 'function') {
      throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS('PostgresSessionStore now', 'expected a function returning milliseconds since the epoch')
    }
    this.#now = options.now ?? Date.now
    this.#sql = sessionStatements(this.names)
    this.#sweeper = new ExpirySweeper(this.pool, this.#sql.sweep, resolveSweepOptions(options, 'PostgresSessionStore'), this.#now)
  }

  async get (key: string): Promise<SessionRecord | null> {
    const { rows } = await run<SessionRow>(this.pool, this.#sql.get, [key, Math.floor(this.#now())])
    return rows[0] === undefined ? null : fromRow(rows[0])
  }

  /** A conditional write (see {@link SessionStore.set}): one statement, a second only to tell 'gone' from 'conflict'. */
  async set (key: string, record: SessionRecord, loaded: SessionWriteCondition | null): Promise<SessionWriteResult> {
    const now = Math.floor(this.#now())
    const identity = record.identity === null ? null : asText(record.identity)
    const json = storedRecordJson(record)
    const expiresAt = Math.floor(record.expiresAt)
    if (loaded === null) {
      const { rowCount } = await run(this.pool, this.#sql.insert, [key, identity, json, expiresAt, record.version, now])
      return rowCount === 1 ? 'written' : 'conflict'
    }
    for (let attempt = 1; attempt <= WRITE_TRIES; attempt++) {
      let written: number | null
      try {
        const write = loaded.key === key ? this.#sql.write : this.#sql.move
        ;({ rowCount: written } = await run(this.pool, write, [loaded.key, key, identity, json, expiresAt, record.version, loaded.version, now]))
      } catch (err) {
        // The source was live at its version, but the new key is taken:
        // by an expired row (freed, then tried again) or a live one.
        if ((err as { code?: unknown }).code !== UNIQUE_VIOLATION || loaded.key === key) throw err
        if ((await run(this.pool, this.#sql.clearExpired, [key, now])).rowCount === 1) continue
        return 'conflict'
      }
      if (written === 1) return 'written'
      // Nothing matched: what the row is now tells why (a fresh read, so a
      // destroy that won the race reads as gone, a write as a conflict).
      // D-POSTGRES-09.
      const { rows } = await run<{ version: number, live: boolean }>(this.pool, this.#sql.probe, [loaded.key, now])
      const found = rows[0]
      if (found === undefined || !found.live) return 'gone'
      if (found.version !== loaded.version) return 'conflict'
    }
    return 'conflict'
  }

  async touch (key: string, expiresAt: number): Promise<void> {
    await run(this.pool, this.#sql.touch, [key, Math.floor(expiresAt), Math.floor(this.#now())])
  }

  /**
   * Deletes the row under `key`; when it was a note a regenerated id left,
   * the row it names too, and so on. A key that found no row is asked once
   * more: a delete that waited on a move in progress sees the moved row
   * under its new key and skips it, and only a new statement sees the note
   * that move committed beside it.
   * D-SESSION-28.
   */
  async destroy (key: string): Promise<void> {
    let at: string | null = key
    while (at !== null) {
      const deleted: DeletedRow | undefined = await this.#delete(at) ?? await this.#delete(at)
      at = deleted?.moved_to ?? null
    }
  }

  async #delete (key: string): Promise<DeletedRow | undefined> {
    const { rows } = await run<DeletedRow>(this.pool, this.#sql.destroy, [key])
    return rows[0]
  }

  async destroyAllFor (identity: string): Promise<number> {
    const { rows } = await run<{ ended: number }>(this.pool, this.#sql.destroyAllFor, [asText(identity), Math.floor(this.#now())])
    return rows[0]?.ended ?? 0
  }

  /**
   * One statement, by the identity index (test/explain.test.ts), the
   * identity's live rows sorted by deadline: O(k log k) for its k sessions.
   * D-SESSION-18.
   */
  async listFor (identity: string, limit: number): Promise<SessionEntry[]> {
    if (!(limit >= 1)) return []
    // Infinity (all of them) as a bigint the statement takes.
    const count = Math.min(Math.floor(limit), Number.MAX_SAFE_INTEGER)
    const { rows } = await run<SessionRow & { key: string }>(this.pool, this.#sql.listFor, [asText(identity), Math.floor(this.#now()), count])
    const entries: SessionEntry[] = []
    for (const row of rows) {
      const record = fromRow(row)
      if (record !== null) entries.push({ key: row.key, record })
    }
    return entries
  }

  /**
   * Deletes the sessions expired now, `sweepBatch` rows per statement;
   * resolves with how many. The timer calls it every `sweepInterval`.
   */
  async sweep (): Promise<number> {
    return await this.#sweeper.sweep()
  }

  /** Stops the sweep timer (waiting for a sweep in flight), then ends the pool the store opened. */
  override async close (): Promise<void> {
    await this.#sweeper.stop()
    await super.close()
  }
}
