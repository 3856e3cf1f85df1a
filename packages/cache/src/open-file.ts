import { close, createReadStream, fstat, open, type Stats } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { Transform, type Readable, pipeline } from 'node:stream'
import { GATEHOUSE_CACHE_FILE_SHRANK } from './errors.js'

/**
 * A file response's file, held open: its validators come from `stats`
 * (fstat of this descriptor) and its bytes are read from the same
 * descriptor, so a file renamed over the path meanwhile changes neither.
 * It stands in for the route's stream until the response is decided; the
 * body it becomes owns the descriptor, and `destroy` (what the cache does
 * to a payload it will not send) closes it otherwise.
 * D-CACHE-13.
 */
export class OpenFile {
  readonly path: string
  readonly stats: Stats
  readonly size: number
  #fd: number | null

  constructor (path: string, fd: number, stats: Stats) {
    this.path = path
    this.#fd = fd
    this.stats = stats
    this.size = stats.size
  }

  /**
   * Bytes `start`…`end` (inclusive) as a stream that owns the descriptor.
   * With `response`, a read that ends short of them (the file shrank after
   * fstat) closes the connection: the response promised those bytes (its
   * Content-Length), and whatever it sent instead must not be taken for
   * its body, nor the next response on the connection for the rest of it.
   */
  body (start: number, end: number, response: ServerResponse | null): Readable {
    const fd = this.take()
    const file = createReadStream(this.path, { fd, start, end, autoClose: true })
    if (response === null) return file
    return pipeline(file, promisedLength(end - start + 1, response), () => {})
  }

  /** Closes the descriptor unless a body took it. */
  destroy (): void {
    const fd = this.#fd
    this.#fd = null
    if (fd !== null) close(fd, () => {})
  }

  private take (): number {
    const fd = this.#fd
    if (fd === null) throw new Error('cache: the open file was already used or closed')
    this.#fd = null
    return fd
  }
}

/**
 * Opens `path` and fstats the descriptor: an `OpenFile` for a regular
 * file, `undefined` otherwise (missing, unreadable, a directory: the
 * route's own payload then says what happens).
 */
export function openFile (path: string, callback: (file: OpenFile | undefined) => void): void {
  open(path, 'r', (err, fd) => {
    if (err !== null) {
      callback(undefined)
      return
    }
    fstat(fd, (statErr, stats) => {
      if (statErr !== null || !stats.isFile()) {
        close(fd, () => {})
        callback(undefined)
        return
      }
      callback(new OpenFile(path, fd, stats))
    })
  })
}

/**
 * Passes bytes through, counting them; ending before `promised` bytes
 * closes the response's connection, then fails the stream with the coded
 * error (logged by Fastify). The connection is closed here, not left to
 * Fastify: before the first byte, Fastify would answer an error response
 * carrying the 206's or 200's headers (Content-Range, Cache-Control).
 */
function promisedLength (promised: number, response: ServerResponse): Transform {
  let sent = 0
  return new Transform({
    transform (chunk: Buffer, _encoding, callback) {
      sent += chunk.length
      callback(null, chunk)
    },
    flush (callback) {
      if (sent >= promised) {
        callback()
        return
      }
      response.destroy()
      callback(new GATEHOUSE_CACHE_FILE_SHRANK(sent, promised))
    }
  })
}
