import { connect, type Socket } from 'node:net'
import { HANG_CEILING_MS } from '../../../../test-helpers/wait.js'

/** A raw TCP connection to 127.0.0.1 that records what the server sends and when it closes. */
export interface RawConnection {
  readonly socket: Socket
  /** Everything received so far, as latin1 text. */
  received: () => string
  /** Whether the server closed (or reset) the connection. */
  isClosed: () => boolean
  /** Resolves once the connection is closed. */
  readonly closed: Promise<void>
}

/** Opens a connection to `127.0.0.1:port`. */
export async function openRaw (port: number): Promise<RawConnection> {
  const socket = connect({ host: '127.0.0.1', port })
  const chunks: Buffer[] = []
  let closed = false
  socket.on('data', (c: Buffer) => { chunks.push(c) })
  // A reset (the server destroying the socket) is an ending like any other.
  socket.on('error', () => {})
  const whenClosed = new Promise<void>((resolve) => socket.once('close', () => { closed = true; resolve() }))
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return { socket, received: () => Buffer.concat(chunks).toString('latin1'), isClosed: () => closed, closed: whenClosed }
}

/** Resolves when `connection` closes; rejects (and destroys it) after `ceilingMs` (default: the hang ceiling). */
export async function untilClosed (connection: RawConnection, ceilingMs = HANG_CEILING_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const ceiling = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      connection.socket.destroy()
      reject(new Error(`the server did not close the connection within ${ceilingMs} ms; received ${JSON.stringify(connection.received().slice(0, 200))}`))
    }, ceilingMs)
  })
  try {
    await Promise.race([connection.closed, ceiling])
  } finally {
    clearTimeout(timer)
  }
}

/** Sends `request` in one write and returns everything received until the server closes. */
export async function rawExchange (port: number, request: string | Buffer, ceilingMs = HANG_CEILING_MS): Promise<string> {
  const connection = await openRaw(port)
  connection.socket.write(request)
  await untilClosed(connection, ceilingMs)
  return connection.received()
}

/**
 * Writes `bytes` one byte at a time, one every `everyMs`, until the server
 * closes the connection or the bytes run out; rejects after `ceilingMs`.
 * Resolves with how many bytes were sent.
 */
export async function trickle (connection: RawConnection, bytes: string, everyMs: number, ceilingMs = HANG_CEILING_MS): Promise<number> {
  const deadline = Date.now() + ceilingMs
  let sent = 0
  while (!connection.isClosed() && sent < bytes.length) {
    if (Date.now() > deadline) {
      connection.socket.destroy()
      throw new Error(`the server still read the trickle after ${ceilingMs} ms (${sent} bytes sent)`)
    }
    connection.socket.write(bytes[sent]!)
    sent++
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  return sent
}

/** The status code of the first response in `raw`, or undefined. */
export function statusOf (raw: string): number | undefined {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(raw)
  return match === null ? undefined : Number(match[1])
}
