import type { SessionRecord, SessionStore } from '@gatehouse/session'
import type { RedisConnection, RedisStoreOptions } from './connection.js'
import { RedisStore } from './redis-store.js'
import { destroyAllSessions, destroySession, setSession, touchSession } from './session-scripts.js'

/** Options of {@link RedisSessionStore}: a connection plus the shared store options. */
export type RedisSessionStoreOptions = RedisConnection & RedisStoreOptions

/** The default key prefix of {@link RedisSessionStore}. */
export const SESSION_PREFIX = 'gatehouse:sess:'

interface StoredRecord { identity: string | null, tags: string[], data: Record<string, unknown>, createdAt: number }

function parse (json: string | null, expires: string | null, now: number): SessionRecord | null {
  if (json === null || expires === null) return null
  const expiresAt = Number(expires)
  if (!(expiresAt > now)) return null
  let stored: StoredRecord
  try {
    stored = JSON.parse(json) as StoredRecord
  } catch {
    return null
  }
  if (stored === null || typeof stored !== 'object' || !Array.isArray(stored.tags) || typeof stored.createdAt !== 'number') return null
  return { identity: typeof stored.identity === 'string' ? stored.identity : null, tags: stored.tags, data: stored.data ?? {}, createdAt: stored.createdAt, expiresAt }
}

/**
 * Sessions in Redis, shared by every server instance that uses the same
 * Redis and prefix. A record lives under `<prefix><key>` (the key is the
 * SHA-256 of the session id, as the session component hands it over) and
 * Redis drops it at its `expiresAt`; `<prefix>identity:<identity>` indexes
 * the sessions of one identity for {@link destroyAllFor}. Every call is one
 * round trip (a read, or a Lua script); a failure or timeout rejects with
 * `GATEHOUSE_REDIS_UNAVAILABLE` (the session component answers 503).
 */
export class RedisSessionStore extends RedisStore implements SessionStore {
  readonly #indexPrefix: string

  /**
   * @param options `{ url }` (the store opens, and `close()` closes, its own
   *   client) or `{ client }` (yours; never closed here), with `prefix`
   *   (default `gatehouse:sess:`) and, for an opened client, timeouts.
   * @param prefix the key prefix, as a second argument (DESIGN §6 form).
   */
  constructor (options: RedisSessionStoreOptions, prefix?: string) {
    super(options, prefix, SESSION_PREFIX, 'RedisSessionStore')
    this.#indexPrefix = `${this.prefix}identity:`
  }

  async get (key: string): Promise<SessionRecord | null> {
    const fields = await this.run(this.connection.client.hmget(this.prefix + key, 'r', 'e'))
    return parse(fields[0] ?? null, fields[1] ?? null, Date.now())
  }

  async set (key: string, record: SessionRecord): Promise<void> {
    const stored: StoredRecord = { identity: record.identity, tags: record.tags, data: record.data, createdAt: record.createdAt }
    const identity = record.identity ?? ''
    await this.run(setSession.run(this.connection.client, [this.prefix + key, this.#indexPrefix + identity],
      [JSON.stringify(stored), Math.floor(record.expiresAt), identity, Date.now(), key, this.#indexPrefix, this.prefix]))
  }

  async touch (key: string, expiresAt: number): Promise<void> {
    await this.run(touchSession.run(this.connection.client, [this.prefix + key], [Math.floor(expiresAt), Date.now(), key, this.#indexPrefix]))
  }

  async destroy (key: string): Promise<void> {
    await this.run(destroySession.run(this.connection.client, [this.prefix + key], [key, this.#indexPrefix]))
  }

  async destroyAllFor (identity: string): Promise<number> {
    return Number(await this.run(destroyAllSessions.run(this.connection.client, [this.#indexPrefix + identity], [this.prefix, identity])))
  }
}
