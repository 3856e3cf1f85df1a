import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'

// What Node's HTTP parser reports, and the answer Node itself would give.
const STATUS_OF: Readonly<Record<string, number>> = {
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413
}
const MESSAGE_OF: Readonly<Record<number, string>> = {
  400: 'Malformed request',
  408: 'The request was not received in time',
  413: 'Chunk extensions too large',
  431: 'Request header fields too large'
}
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/

function answer (status: number, code: string | undefined): string {
  const error = STATUS_CODES[status] ?? 'Bad Request'
  const body = JSON.stringify({ statusCode: status, ...(code === undefined ? {} : { code }), error, message: MESSAGE_OF[status] })
  return `HTTP/1.1 ${status} ${error}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`
}

/**
 * Fastify's `clientErrorHandler` server option, without the leak: Fastify's
 * default handler logs the whole error at `trace`, and Node attaches to it
 * `rawPacket`, the bytes of the malformed request — its Authorization and
 * Cookie headers included. This one logs (at `debug`) only Node's error
 * code and the client address, and answers like Node and Fastify do: 408
 * for a request not received in time (`requestTimeout`/`headersTimeout`),
 * 431 for an oversized head, 413 for oversized chunk extensions, 400 for
 * anything else (a bad header line, method, URL or chunked encoding), as
 * JSON with the error code, then closes the connection. Nothing is written
 * into a response already started on that connection.
 *
 * ```ts
 * import Fastify from 'fastify'
 * import { clientErrorHandler } from '@fastify-gatehouse/logging'
 * const app = Fastify({ logger: true, clientErrorHandler })
 * ```
 *
 * AppServer installs it.
 * D-LOGGING-07: a code, never bytes; it lives here because what it fixes is what gets logged.
 */
export function clientErrorHandler (this: { log?: FastifyBaseLogger } | undefined, error: Error & { code?: unknown }, socket: Socket): void {
  // A reset connection is gone already: nothing to answer, nothing worth a line.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const code = typeof error.code === 'string' && CODE.test(error.code) ? error.code : undefined
  const status = (code === undefined ? undefined : STATUS_OF[code]) ?? 400
  this?.log?.debug({ code, statusCode: status, remoteAddress: socket.remoteAddress }, `client error: ${code ?? 'unknown'}; answered ${status} and closed the connection`)
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (socket.writable && inFlight?.headersSent !== true) socket.write(answer(status, code))
  socket.destroy()
}
