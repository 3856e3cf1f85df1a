import type { FileHandle } from 'node:fs/promises'
import { TimeSlice } from './time-slice.js'

const CHUNK = 1024 * 1024
const NEWLINE = 0x0a

/**
 * The longest line a journal may hold (bytes). Real lines are far shorter
 * (a record is well under 64 KiB; a line of last uses about 47 KiB): a
 * longer one would be parsed in one synchronous step, stalling the event
 * loop, so writers refuse it and readers stop at it, naming the line.
 */
export const MAX_LINE_BYTES = 1024 * 1024

/** A line over {@link MAX_LINE_BYTES}. */
export class LineTooLong extends Error {}

/**
 * The file ended before the size its `stat` gave: it was cut or rewritten
 * while it was read (an editor or `writeFile` truncating it in place). What
 * was read is not the file at any one moment, so it is not used.
 * D-AUTH-81.
 */
export class FileShrank extends Error {}

/**
 * Calls `onLine` for each complete line of `file` from byte `start` up to
 * byte `end` (the size seen by the caller's `stat`), with the line's size
 * in bytes (its `\n` included); resolves with the offset after the last
 * complete line. A tail without `\n` is left unread; a file that ends
 * before `end` throws {@link FileShrank}. Lines may span chunks
 * and be of any length. Yields to the event loop every few milliseconds,
 * so a file of any size is read without a long stall (D-AUTH-24).
 */
export async function readLines (file: FileHandle, start: number, end: number, onLine: (line: string, bytes: number) => void): Promise<number> {
  const slice = new TimeSlice()
  // Where the line being read began, and its bytes from earlier chunks.
  let lineStart = start
  let carry: Buffer[] = []
  let position = start
  while (position < end) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, end - position))
    const { bytesRead } = await file.read(buffer, 0, buffer.length, position)
    if (bytesRead === 0) throw new FileShrank(`the file was cut to ${position} bytes while it was read (it had ${end}): changed by another program?`)
    const chunkStart = position
    position += bytesRead
    let from = 0
    for (;;) {
      const at = buffer.indexOf(NEWLINE, from)
      if (at === -1 || at >= bytesRead) break
      let line: string
      if (carry.length === 0) {
        line = buffer.toString('utf8', from, at)
      } else {
        carry.push(buffer.subarray(from, at))
        line = Buffer.concat(carry).toString('utf8')
        carry = []
      }
      const lineEnd = chunkStart + at + 1
      if (lineEnd - lineStart > MAX_LINE_BYTES) throw new LineTooLong(`a line longer than ${MAX_LINE_BYTES} bytes at byte ${lineStart}`)
      onLine(line, lineEnd - lineStart)
      lineStart = lineEnd
      from = at + 1
      if (slice.due()) await slice.pause()
    }
    if (position - lineStart > MAX_LINE_BYTES) throw new LineTooLong(`a line longer than ${MAX_LINE_BYTES} bytes at byte ${lineStart}`)
    // A copy: the next chunk gets a buffer of its own anyway, and this one may be large.
    if (from < bytesRead) carry.push(Buffer.from(buffer.subarray(from, bytesRead)))
  }
  return lineStart
}

/** The first line of `file` (of `size` bytes), if it ends within the first 4 KiB; `end` is the offset after its \n (0: none). */
export async function readHead (file: FileHandle, size: number): Promise<{ line: string, end: number }> {
  const head = Buffer.alloc(Math.min(size, 4096))
  const { bytesRead } = await file.read(head, 0, head.length, 0)
  const newline = head.subarray(0, bytesRead).indexOf(NEWLINE)
  return newline === -1 ? { line: '', end: 0 } : { line: head.toString('utf8', 0, newline), end: newline + 1 }
}
