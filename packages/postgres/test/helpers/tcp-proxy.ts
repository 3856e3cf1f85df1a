import { createConnection, createServer, type Server, type Socket } from 'node:net'

type Mode = 'forward' | 'refuse' | 'blackhole'

interface Pair {
  readonly client: Socket
  upstream: Socket | undefined
  /** The client's startup message named the change listener's application_name. */
  listener: boolean
  /** Data is dropped both ways: a connection gone silent (half-open). */
  frozen: boolean
}

/**
 * A TCP proxy on 127.0.0.1 in front of PostgreSQL, for making the database
 * go away under a store without touching the shared server: `refuse()`
 * turns new connections away (the ones open keep working), `cut()` also
 * ends every open one, `blackhole()` ends the open ones and lets new ones
 * connect to nothing that answers, `freezeListeners()` makes the open
 * change-listener connections silent (half-open), `forward()` brings it back.
 */
export class TcpProxy {
  readonly #server: Server
  readonly #target: { host: string, port: number }
  readonly #pairs = new Set<Pair>()
  #mode: Mode = 'forward'

  private constructor (target: { host: string, port: number }) {
    this.#target = target
    // Half-open allowed: a frozen connection must not pass a FIN on either.
    this.#server = createServer({ allowHalfOpen: true }, (socket) => { this.#accept(socket) })
  }

  /** Starts a proxy to the host and port of `url` (a postgres:// URL). */
  static async start (url: string): Promise<TcpProxy> {
    const parsed = new URL(url)
    const proxy = new TcpProxy({ host: parsed.hostname, port: Number(parsed.port === '' ? 5432 : parsed.port) })
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve))
    return proxy
  }

  get port (): number {
    return (this.#server.address() as { port: number }).port
  }

  /** `url` with the proxy as its host and port. */
  urlFor (url: string): string {
    const parsed = new URL(url)
    parsed.hostname = '127.0.0.1'
    parsed.port = String(this.port)
    return parsed.href
  }

  #accept (socket: Socket): void {
    socket.on('error', () => {})
    if (this.#mode === 'refuse') {
      socket.destroy()
      return
    }
    const pair: Pair = { client: socket, upstream: undefined, listener: false, frozen: false }
    this.#pairs.add(pair)
    socket.on('close', () => { this.#pairs.delete(pair) })
    if (this.#mode === 'blackhole') return
    const upstream = createConnection({ ...this.#target, allowHalfOpen: true })
    pair.upstream = upstream
    socket.on('end', () => { if (!pair.frozen) upstream.end() })
    upstream.on('end', () => { if (!pair.frozen) socket.end() })
    upstream.on('error', () => { socket.destroy() })
    socket.on('close', () => { upstream.destroy() })
    upstream.on('close', () => { socket.destroy() })
    // The first bytes are the startup message, which names application_name.
    socket.on('data', (data) => {
      if (!pair.listener && data.includes('gatehouse-listener')) pair.listener = true
      if (!pair.frozen) upstream.write(data)
    })
    upstream.on('data', (data) => { if (!pair.frozen) socket.write(data) })
  }

  /** The open change-listener connections go silent both ways (neither end is told); resolves with how many. */
  freezeListeners (): number {
    let frozen = 0
    for (const pair of this.#pairs) {
      if (pair.listener && !pair.frozen) {
        pair.frozen = true
        frozen++
      }
    }
    return frozen
  }

  /** New connections are dropped at once; open ones keep working. */
  refuse (): void {
    this.#mode = 'refuse'
  }

  /** Every open connection ends and new ones are dropped: the database is away. */
  cut (): void {
    this.#mode = 'refuse'
    this.#endAll()
  }

  /** Every open connection ends; new ones connect but nothing ever answers. */
  blackhole (): void {
    this.#mode = 'blackhole'
    this.#endAll()
  }

  /** Connections go through again. */
  forward (): void {
    this.#mode = 'forward'
  }

  #endAll (): void {
    for (const pair of this.#pairs) pair.client.destroy()
    this.#pairs.clear()
  }

  async close (): Promise<void> {
    this.#endAll()
    await new Promise<void>((resolve) => this.#server.close(() => { resolve() }))
  }
}
