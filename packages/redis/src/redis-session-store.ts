import { recordFromStored, storedRecordJson, type SessionEntry, type SessionRecord, type SessionStore, type SessionWriteCondition, type SessionWriteResult } from '@fastify-gatehouse/session'
import { GATEHOUSE_REDIS_SCRIPT } from './errors.js'
import type { RedisConnection, RedisStoreOptions } from './options.js'
import { RedisStore } from './redis-store.js'
import { DESTROY_BATCH, destroySession, destroySessionBatch, listSessions, setSession, touchSession } from './session-scripts.js'

/** Options of {@link RedisSessionStore}: a connection plus the shared store options. */
export type RedisSessionStoreOptions = RedisConnection & RedisStoreOptions

/** The default key prefix of {@link RedisSessionStore}. */
export const SESSION_PREFIX = 'gatehouse:sess:'

const RESULTS: ReadonlySet<unknown> = new Set(['written', 'gone', 'conflict'])

/**
 * A record from its hash fields; a record without a version (written before versions existed) reads as version 0.
 * D-SESSION-06: version 0 is not a live session; its user signs in again.
 */
function parse (json: string | null, expires: string | null, version: string | null, now: number): SessionRecord | null {
  if (json === null || expires === null) return null
  const expiresAt = Number(expires)
  if (!(expiresAt > now)) return null
  let stored: unknown
  try {
    stored = JSON.parse(json)
  } catch {
    return null
  }
  return recordFromStored(stored, expiresAt, Number(version ?? 0) || 0)
}

/**
 * Sessions in Redis, shared by every server instance that uses the same
 * Redis and prefix. A record lives under `<prefix><key>` (the key is the
 * SHA-256 of the session id, as the session component hands it over) and
 * Redis drops it at its `expiresAt`; `<prefix>identity:<identity>`, a
 * sorted set scored by expiry, indexes the sessions of one identity for
 * {@link destroyAllFor}, so a write costs the same whatever their number.
 * Every call is one round trip (a read, or a Lua script; `destroyAllFor`
 * one per batch of sessions); a failure or timeout rejects with
 * `GATEHOUSE_REDIS_UNAVAILABLE` (the session component answers 503).
 */
export class RedisSessionStore extends RedisStore implements SessionStore {
  readonly #indexPrefix: string

  /**
   * Opens the store and waits until Redis answers: rejects with
   * `GATEHOUSE_REDIS_INVALID_OPTIONS` for bad options and
   * `GATEHOUSE_REDIS_CONNECT` when Redis is not ready within
   * `connectTimeout`, so a server fails at boot, not on a request.
   *
   * @param options `{ url }` (the store opens, and `close()` closes, its own
   *   client) or `{ client }` (yours; never closed here, connected if it was
   *   made with `lazyConnect`), with `prefix` (default `gatehouse:sess:`)
   *   and, for an opened client, timeouts.
   * @param prefix the key prefix, as a second argument (DESIGN §6 form).
   * D-REDIS-08.
   */
  static async connect (options: RedisSessionStoreOptions, prefix?: string): Promise<RedisSessionStore> {
    return await RedisStore.connected(new RedisSessionStore(options, prefix))
  }

  /**
   * @deprecated Use {@link RedisSessionStore.connect}: this starts connecting
   * without waiting, so Redis being away shows only at `ready()` or on the
   * first request.
   */
  constructor (options: RedisSessionStoreOptions, prefix?: string) {
    super(options, prefix, SESSION_PREFIX, 'RedisSessionStore')
    this.#indexPrefix = `${this.prefix}identity:`
  }

  async get (key: string): Promise<SessionRecord | null> {
    const fields = await this.run(this.connection.client.hmget(this.prefix + key, 'r', 'e', 'v'))
    return parse(fields[0] ?? null, fields[1] ?? null, fields[2] ?? null, Date.now())
  }

  /** A conditional write in one Lua round trip (see {@link SessionStore.set}). */
  async set (key: string, record: SessionRecord, loaded: SessionWriteCondition | null): Promise<SessionWriteResult> {
    const identity = record.identity ?? ''
    const from = loaded?.key ?? key
    const result = await this.run(setSession.run(this.connection.client, [this.prefix + key, this.prefix + from, this.#indexPrefix + identity],
      [this.#indexPrefix, this.prefix, storedRecordJson(record), Math.floor(record.expiresAt), identity, Date.now(), key,
        loaded === null ? '' : String(loaded.version), String(record.version), from]))
    if (!RESULTS.has(result)) throw new GATEHOUSE_REDIS_SCRIPT(`unexpected answer from the session write script: ${String(result)}`)
    return result as SessionWriteResult
  }

  async touch (key: string, expiresAt: number): Promise<void> {
    await this.run(touchSession.run(this.connection.client, [this.prefix + key], [this.#indexPrefix, this.prefix, Math.floor(expiresAt), Date.now(), key]))
  }

  async destroy (key: string): Promise<void> {
    await this.run(destroySession.run(this.connection.client, [this.prefix + key], [this.#indexPrefix, this.prefix, key]))
  }

  /** One script: the identity's index (live members only, latest deadlines first) and their records. */
  async listFor (identity: string, limit: number): Promise<SessionEntry[]> {
    if (!(limit >= 1)) return []
    const now = Date.now()
    // Infinity (all of them) as a count Redis and Lua both take.
    const count = Math.min(Math.floor(limit), Number.MAX_SAFE_INTEGER)
    const answer = await this.run(listSessions.run(this.connection.client, [], [this.#indexPrefix, this.prefix, identity, count, now]))
    if (!Array.isArray(answer)) throw new GATEHOUSE_REDIS_SCRIPT(`unexpected answer from the session list script: ${String(answer)}`)
    const entries: SessionEntry[] = []
    for (let i = 0; i + 3 < answer.length; i += 4) {
      const record = parse(String(answer[i + 1]), String(answer[i + 2]), String(answer[i + 3]), now)
      if (record !== null) entries.push({ key: String(answer[i]), record })
    }
    return entries
  }

  /**
   * Ends the identity's sessions a batch at a time (one script each), so
   * Redis is never blocked for long however many there are. A session
   * created while it runs is ended too if it is indexed before the last
   * batch, as it would be had it been created just before.
   * D-REDIS-09: bounded batches.
   */
  async destroyAllFor (identity: string): Promise<number> {
    let ended = 0
    for (;;) {
      const answer = await this.run(destroySessionBatch.run(this.connection.client, [], [this.#indexPrefix, this.prefix, identity, Date.now(), DESTROY_BATCH]))
      const [batch, left] = Array.isArray(answer) ? answer as unknown[] : []
      if (typeof batch !== 'number' || typeof left !== 'number') throw new GATEHOUSE_REDIS_SCRIPT(`unexpected answer from the session end script: ${String(answer)}`)
      ended += batch
      if (left === 0) return ended
    }
  }
}
