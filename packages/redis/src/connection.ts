import { setTimeout as sleep } from 'node:timers/promises'
import { Redis, type RedisOptions } from 'ioredis'
import { GATEHOUSE_REDIS_CONNECT } from './errors.js'
import type { ResolvedRedisStoreOptions } from './options.js'

/** An ioredis client and whether the store opened it (and so must close it). */
export interface OpenedConnection {
  readonly client: Redis
  readonly owned: boolean
}

/**
 * Opens the connection a store was given. A client made here fails fast
 * while Redis is away (no offline queue, bounded command and connect
 * timeouts, one retry) and reconnects by itself; its `error` events are
 * absorbed (each failed call rejects on its own).
 */
export function openConnection (options: ResolvedRedisStoreOptions): OpenedConnection {
  if (options.client !== undefined) return { client: options.client, owned: false }
  const settings: RedisOptions = {
    commandTimeout: options.commandTimeout,
    connectTimeout: options.connectTimeout,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // Reconnect for ever, backing off to one attempt every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000)
  }
  const opened = new Redis(options.url as string, settings)
  opened.on('error', () => {})
  return { client: opened, owned: true }
}

/** host:port of a client, for messages (never the password). */
function address (client: Redis): string {
  const { host, port } = client.options
  return `${host ?? '127.0.0.1'}:${port ?? 6379}`
}

/**
 * Resolves once `client` is ready (connecting a lazy client of yours), or
 * rejects with `GATEHOUSE_REDIS_CONNECT` after `timeout` ms, naming the
 * store, the address and the last connection error.
 */
export async function whenReady (client: Redis, timeout: number, store: string): Promise<void> {
  if (client.status === 'ready') return
  let lastError = ''
  const onError = (err: Error): void => { lastError = err.message }
  client.on('error', onError)
  try {
    if (client.status === 'wait') client.connect().catch(() => {})
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        client.off('ready', ready)
        reject(new GATEHOUSE_REDIS_CONNECT(store, address(client), `no answer within ${timeout} ms${lastError === '' ? '' : ` (${lastError})`}`))
      }, timeout)
      const ready = (): void => { clearTimeout(timer); resolve() }
      client.once('ready', ready)
    })
  } finally {
    client.off('error', onError)
  }
}

/** Closes a client the store opened: QUIT, or a hard disconnect when Redis does not answer within a second. */
export async function closeConnection (connection: OpenedConnection): Promise<void> {
  if (!connection.owned || connection.client.status === 'end') return
  const { client } = connection
  const quit = client.status === 'ready' &&
    await Promise.race([client.quit().then(() => true, () => false), sleep(1000, false, { ref: false })])
  if (!quit) client.disconnect()
}
