import { performance } from 'node:perf_hooks'
import pg from 'pg'
import type { ResolvedPostgresOptions } from './options.js'

/**
 * How stale a cached entry may be when no listener vouches for it, in ms:
 * the listener must have answered a heartbeat sent less than this long ago
 * for its silence to mean "nothing changed"; otherwise an entry is trusted
 * this long from its fetch. Heartbeats go every half of it.
 * D-POSTGRES-ID4.
 */
export const LISTENER_BOUND_MS = 1000
const HEARTBEAT_MS = LISTENER_BOUND_MS / 2
// Reconnection: 50 ms, doubling, at most 2 s between attempts.
const FIRST_RETRY_MS = 50
const MAX_RETRY_MS = 2000

/**
 * What one listener connection vouches for: every change committed after
 * `since` and before `heard` has been announced to it (`heard` is when the
 * last heartbeat it answered was sent: PostgreSQL writes pending
 * notifications to an idle connection before it reads the next statement).
 * Times are `performance.now()`.
 */
export interface Coverage {
  readonly since: number
  readonly heard: number
}

/**
 * The client settings of the listener: the pool's own, under its own
 * application name; connecting, LISTEN and each heartbeat wait at most
 * `connectTimeout`.
 */
export function listenerConfig (options: ResolvedPostgresOptions, pool: pg.Pool): pg.ClientConfig {
  const base: pg.ClientConfig = options.url !== undefined
    ? { connectionString: options.url }
    // pg-pool hides the password from enumeration: copied by name.
    : { ...pool.options, password: pool.options.password }
  return {
    ...base,
    application_name: 'gatehouse-listener',
    connectionTimeoutMillis: options.connectTimeout,
    query_timeout: options.connectTimeout,
    keepAlive: true
  }
}

/**
 * One dedicated connection (not a pool's) that LISTENs on the schema's
 * change channel and hands each payload to `onChange`. When it fails, ends
 * or stops answering its heartbeat, it is replaced, with backoff, for as
 * long as the listener is open.
 * D-POSTGRES-ID3, D-POSTGRES-ID4.
 */
export class ChangeListener {
  readonly #config: pg.ClientConfig
  readonly #channel: string
  readonly #onChange: (payload: string) => void
  readonly #deadAfter: number
  #client: pg.Client | undefined
  #coverage: { since: number, heard: number } | undefined
  #beatSent: number | undefined
  #retries = 0
  #retry: NodeJS.Timeout | undefined
  #heartbeat: NodeJS.Timeout | undefined
  #closed = false

  /**
   * @param deadAfter ms a heartbeat may go unanswered before the connection is dropped and replaced
   */
  constructor (config: pg.ClientConfig, channel: string, onChange: (payload: string) => void, deadAfter: number) {
    this.#config = config
    this.#channel = channel
    this.#onChange = onChange
    this.#deadAfter = deadAfter
  }

  /** Connects and LISTENs once; rejects when that fails (a boot error for the store). */
  async start (): Promise<void> {
    await this.#connect()
    this.#heartbeat = setInterval(() => { this.#beat() }, HEARTBEAT_MS)
    this.#heartbeat.unref()
  }

  /** What the current or the last connection vouches for; undefined before the first one. */
  get coverage (): Coverage | undefined {
    return this.#coverage
  }

  /** Whether a connection is LISTENing and answered a heartbeat lately (within {@link LISTENER_BOUND_MS}). */
  get listening (): boolean {
    return this.#client !== undefined && this.#coverage !== undefined && performance.now() - this.#coverage.heard < LISTENER_BOUND_MS
  }

  async #connect (): Promise<void> {
    const client = new pg.Client(this.#config)
    client.on('error', () => { this.#lost(client) })
    client.on('end', () => { this.#lost(client) })
    // Any client's notification is acted on: dropping a cache entry once
    // too often costs a query, never a stale answer.
    client.on('notification', (message) => { if (message.channel === this.#channel) this.#onChange(message.payload ?? '') })
    try {
      await client.connect()
      await client.query(`listen ${pg.escapeIdentifier(this.#channel)}`)
    } catch (err) {
      this.#drop(client)
      throw err
    }
    if (this.#closed) {
      this.#drop(client)
      return
    }
    const since = performance.now()
    this.#client = client
    this.#coverage = { since, heard: since }
    this.#beatSent = undefined
    this.#retries = 0
  }

  #beat (): void {
    const client = this.#client
    if (client === undefined) return
    const sent = performance.now()
    if (this.#beatSent !== undefined) {
      if (sent - this.#beatSent > this.#deadAfter) this.#lost(client)
      return
    }
    this.#beatSent = sent
    client.query('select 1').then(() => {
      if (client !== this.#client) return
      this.#beatSent = undefined
      this.#coverage = { since: this.#coverage!.since, heard: sent }
    }, () => { this.#lost(client) })
  }

  /** The connection failed, ended or went silent: drop it and connect again after a backoff. */
  #lost (client: pg.Client): void {
    if (client !== this.#client) return
    this.#client = undefined
    this.#drop(client)
    this.#schedule()
  }

  #schedule (): void {
    if (this.#closed || this.#retry !== undefined) return
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.#retries++)
    this.#retry = setTimeout(() => {
      this.#retry = undefined
      if (this.#closed) return
      this.#connect().catch(() => { this.#schedule() })
    }, delay)
    this.#retry.unref()
  }

  #drop (client: pg.Client): void {
    client.removeAllListeners('notification')
    // end() waits for a server that may never answer: the socket goes too.
    client.end().catch(() => {})
    client.connection?.stream?.destroy()
  }

  /** Stops listening and reconnecting; a connection whose server does not answer the goodbye is cut after `deadAfter`. */
  async close (): Promise<void> {
    this.#closed = true
    clearInterval(this.#heartbeat)
    clearTimeout(this.#retry)
    const client = this.#client
    this.#client = undefined
    if (client === undefined) return
    client.removeAllListeners('notification')
    const cut = setTimeout(() => { client.connection?.stream?.destroy() }, this.#deadAfter)
    await client.end().catch(() => {})
    clearTimeout(cut)
  }
}
