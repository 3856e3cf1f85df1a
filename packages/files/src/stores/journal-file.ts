import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, stat, truncate, unlink, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { GATEHOUSE_AUTH_STORE_FILE, GATEHOUSE_AUTH_STORE_INPUT, storeFull } from '../errors.js'
import { MAX_WAIT_MS, STALE_MS, withFileLock, type FileLease } from './file-lock.js'
import { realFile } from './real-file.js'
import { Stillness, stillClock } from './still-clock.js'
import { encodeEntry, headerLine, headerProblem, parseEntry, parseHeader, USED_PER_LINE, type Entry, type Header, type RecordKind, type Table } from './journal-format.js'
import { FileShrank, MAX_LINE_BYTES, readHead, readLines } from './journal-reader.js'
import { JournalState } from './journal-state.js'
import type { StoreLimits } from './store-limits.js'
import { TimeSlice } from './time-slice.js'
import { readVersion1 } from './v1-document.js'

/** What a change does to the records: one entry, or nothing (then nothing is written). */
export interface Planned<R, X> {
  readonly entry?: Entry<R>
  readonly result: X
}

// D-AUTH-23: compact when superseded lines outnumber the live records, and are at least this many.
const MIN_DEAD_LINES = 1000
// Bytes written to a compacted file at a time.
const WRITE_CHUNK = 1024 * 1024

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT'

/** Bytes after the last complete line, as seen under the lock. */
interface Tail {
  readonly ino: number
  /** Where the tail starts: the end of the last complete line. */
  readonly offset: number
  readonly size: number
  readonly mtimeMs: number
}

const sameTail = (a: Tail, b: Tail): boolean => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs

/**
 * The records of a store file, kept in memory and shared with other
 * processes through the file (format: journal-format.ts).
 *
 * - Reading: `refresh()` brings the records up to the file. The same file
 *   grown: only the new lines are read and applied. Another file (a
 *   compaction by another process, a version 1 document) or a shorter one:
 *   read whole into a new table, in slices of a few milliseconds, while
 *   `table` keeps answering with the old records; swapped when complete.
 * - Writing: `change(plan)` takes the file's lock, catches up, lets `plan`
 *   decide on the records as they are, checks the one record it writes and
 *   the limits, then appends one line and fsyncs (O(changed records)), or
 *   rewrites the live records to a temp file renamed over the store (a
 *   compaction: a missing or version 1 file, too many superseded lines, or
 *   an append that would pass `maxFileBytes`).
 *
 * Never two reads or writes of the state at once in one process (a
 * mutex); changes of one instance queue before the lock, so they do not
 * poll for it against each other. D-AUTH-23, D-AUTH-24, D-AUTH-25.
 */
export class JournalFile<R, T extends Table<R>> {
  readonly path: string
  readonly #kind: RecordKind<R, T>
  readonly #limits: StoreLimits
  #state: JournalState<R, T>
  // A full reload that failed, and the file version it failed on: not tried again until the file changes.
  #failed: { signature: string, error: Error } | null = null
  #mutex: Promise<void> = Promise.resolve()
  #changes: Promise<unknown> = Promise.resolve()
  #refreshing: Promise<void> | null = null
  /** When the records were last found to match the file (ms; 0: never). */
  checkedAt = 0

  constructor (path: string, kind: RecordKind<R, T>, limits: StoreLimits) {
    this.path = path
    this.#kind = kind
    this.#limits = limits
    this.#state = new JournalState(kind)
  }

  /** The records as last read or written. Replaced whole by a full reload: read it again after an `await`. */
  get table (): T {
    return this.#state.table
  }

  /** Brings the records up to the file; concurrent callers share one refresh. */
  refresh (): Promise<void> {
    this.#refreshing ??= this.#exclusive(async () => { await this.#sync(false) })
      .finally(() => { this.#refreshing = null })
    return this.#refreshing
  }

  /**
   * Runs `plan` on the current records under the file's lock and writes
   * its entry; resolves with its result. `plan` may throw (bad input):
   * nothing is written then. A change past a limit throws
   * `GATEHOUSE_AUTH_STORE_FULL` (507) and writes nothing.
   */
  change<X> (plan: (table: T) => Planned<R, X>): Promise<X> {
    const run = this.#changes.then(async () => {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 })
      // D-AUTH-40: locked and written at its real path, so that every link to the file shares one lock.
      const target = await realFile(this.path).catch((err: Error) => { throw this.#fileError(err.message) })
      return await withFileLock(target, async (lease) => {
        const since = stillClock.now()
        const still = new Stillness(sameTail)
        for (;;) {
          const step = await this.#exclusive(async (): Promise<{ tail: Tail } | { result: X }> => {
            const tail = await this.#sync(true)
            if (tail !== undefined) return { tail }
            const { entry, result } = plan(this.#state.table)
            if (entry !== undefined) await this.#write(entry, lease, target)
            return { result }
          })
          if ('result' in step) return step.result
          // Waited for outside the mutex: reads go on meanwhile.
          await this.#dropTail(step.tail, lease, target, still, since)
        }
      })
    })
    this.#changes = run.catch(() => {})
    return run
  }

  /**
   * A last line without its \n, found under the lock: a write cut short
   * (a crash, a full disk), or one still under way by a holder whose lock
   * was taken over while it stalled (on another machine: one here that is
   * still running is never taken over). Truncated only once the file has
   * gone unchanged for as long as a lock goes untouched before it counts as
   * stale (as this process has watched it, on its own clock: the mtime's
   * value is the writer's clock); until then waited for, as the writer may
   * still end the line.
   * D-AUTH-35, D-AUTH-39.
   */
  async #dropTail (tail: Tail, lease: FileLease, target: string, still: Stillness<Tail>, since: number): Promise<void> {
    if (still.look(tail) > STALE_MS) {
      const info = await stat(target)
      // Changed since it was judged: judged again.
      if (info.ino !== tail.ino || info.size !== tail.size || info.mtimeMs !== tail.mtimeMs) return
      await lease.check()
      await truncate(target, tail.offset)
      return
    }
    if (stillClock.now() - since > MAX_WAIT_MS) {
      throw this.#fileError(`its last line has had no end for ${MAX_WAIT_MS / 1000} s while the file kept changing: does another program write to it without the lock?`)
    }
    await sleep(20)
  }

  async #exclusive<X> (work: () => Promise<X>): Promise<X> {
    const before = this.#mutex
    let release!: () => void
    this.#mutex = new Promise((resolve) => { release = resolve })
    await before
    try {
      return await work()
    } finally {
      release()
    }
  }

  #fileError (message: string): Error {
    return new GATEHOUSE_AUTH_STORE_FILE(this.path, message)
  }

  /** Catches up with the file; under the lock, resolves with a partial last line if there is one (#dropTail). */
  async #sync (locked: boolean): Promise<Tail | undefined> {
    const started = Date.now()
    let file: FileHandle
    try {
      file = await open(this.path, 'r')
    } catch (err) {
      if (!isMissing(err)) throw this.#fileError((err as Error).message)
      // D-AUTH-23: a file removed means no records (a store not yet written to).
      if (this.#state.file.format !== 0) this.#state = new JournalState(this.#kind)
      this.checkedAt = started
      return undefined
    }
    try {
      const info = await file.stat()
      const head = await readHead(file, info.size)
      const header = parseHeader(head.line)
      const signature = header === undefined ? `${info.ino}:${info.size}:${info.mtimeMs}` : `${info.ino}:${header.id}`
      const state = this.#state
      if (state.file.format === 2 && state.file.signature === signature && info.size >= state.offset && await endsLine(file, state.offset)) {
        // The same journal, perhaps grown: apply the new lines to the records in use.
        if (info.size > state.offset) {
          try {
            await this.#readInto(state, file, info.size)
          } catch (err) {
            // A file rewritten in place (an editor saving over it keeps the
            // inode and the header) reads as garbage from the old offset:
            // read it whole before calling it corrupt.
            this.#state = await this.#load(file, info.size, header, head.end, signature).catch(() => { throw err })
          }
        }
      } else if (!(state.file.format === 1 && state.file.signature === signature)) {
        if (this.#failed?.signature === `${signature}:${info.size}`) throw this.#failed.error
        try {
          this.#state = await this.#load(file, info.size, header, head.end, signature)
          this.#failed = null
        } catch (err) {
          // D-AUTH-81: a read the file shrank under is tried again at the next look, not remembered as this version's failure.
          if (!(err instanceof FileShrank)) this.#failed = { signature: `${signature}:${info.size}`, error: err as Error }
          throw err
        }
      }
      this.checkedAt = started
      if (locked && this.#state.file.format === 2 && info.size > this.#state.offset) {
        return { ino: info.ino, offset: this.#state.offset, size: info.size, mtimeMs: info.mtimeMs }
      }
      return undefined
    } catch (err) {
      // Every failure names the file (a directory at the path, a line too long, an I/O error).
      throw (err as { code?: unknown }).code === 'GATEHOUSE_AUTH_STORE_FILE' ? err : this.#fileError((err as Error).message)
    } finally {
      await file.close()
    }
  }

  /** Reads the complete lines of `file` after `state.offset` into `state`. */
  async #readInto (state: JournalState<R, T>, file: FileHandle, size: number): Promise<void> {
    await readLines(file, state.offset, size, (line, bytes) => {
      let entry: Entry<R>
      try {
        entry = parseEntry(line, this.#kind)
      } catch (err) {
        throw this.#fileError(`line ${state.lines + 1}: ${(err as Error).message}`)
      }
      state.apply(entry, bytes)
      state.offset += bytes
      state.lines++
    })
  }

  /** Reads the whole file into a new state: a journal (its header read already), or a version 1 document. */
  async #load (file: FileHandle, size: number, header: Header | undefined, headerEnd: number, signature: string): Promise<JournalState<R, T>> {
    if (header !== undefined) {
      const problem = headerProblem(header, this.#kind.name)
      if (problem !== undefined) throw this.#fileError(`line 1: ${problem}`)
      const state = new JournalState(this.#kind, { format: 2, signature })
      state.offset = headerEnd
      state.lines = 1
      await this.#readInto(state, file, size)
      return state
    }
    // D-AUTH-23: a version 1 document is read whole, so it keeps a cap.
    if (size > this.#limits.maxFileBytes) throw this.#fileError(`a version 1 document of ${size} bytes, over maxFileBytes (${this.#limits.maxFileBytes}): raise maxFileBytes to open it`)
    const state = new JournalState(this.#kind, { format: 1, signature })
    let text: string
    try {
      text = (await file.readFile()).toString('utf8')
    } catch (err) {
      throw this.#fileError((err as Error).message)
    }
    try {
      await readVersion1(text, this.#kind, state)
    } catch (err) {
      throw this.#fileError((err as Error).message)
    }
    state.offset = size
    return state
  }

  /** Writes `entry` (checked, within the limits) to the file at `target` (its real path): appended, or in a compacted file. */
  async #write (entry: Entry<R>, lease: FileLease, target: string): Promise<void> {
    const state = this.#state
    const table = state.table
    const kind = this.#kind
    // One entry a line: last uses are split into lines of at most USED_PER_LINE.
    let entries: Array<Entry<R>> = [entry]
    let grows = 0
    if ('put' in entry) {
      // D-AUTH-23: only the changed record is checked, with the reader's check, so the reader accepts it.
      const problem = kind.invalid(entry.put)
      if (problem !== undefined) throw new GATEHOUSE_AUTH_STORE_INPUT(`${kind.noun} record: unexpected content at ${problem.startsWith(':') ? '/' : ''}${problem}`)
      if (!table.has(kind.idOf(entry.put))) grows = 1
    } else if ('delete' in entry) {
      if (table.has(entry.delete)) grows = -1
    } else {
      entries = []
      for (let i = 0; i < entry.used.length; i += USED_PER_LINE) entries.push({ used: entry.used.slice(i, i + USED_PER_LINE) })
    }
    // Last uses may fill many lines: encoded and applied in slices.
    const slice = new TimeSlice()
    const lines: string[] = []
    for (const e of entries) {
      lines.push(encodeEntry(e) + '\n')
      if (slice.due()) await slice.pause()
    }
    const sizes = lines.map((line) => Buffer.byteLength(line))
    if (sizes.some((size) => size > MAX_LINE_BYTES)) throw new GATEHOUSE_AUTH_STORE_INPUT(`${kind.noun} record: over ${MAX_LINE_BYTES} bytes as a journal line (too many tags?)`)
    const bytes = sizes.reduce((a, b) => a + b, 0)
    if (grows === 1) this.#checkRoom(bytes)
    const live = table.size + grows
    const dead = state.deadLines + entries.length - grows
    if (state.file.format !== 2 || state.offset + bytes > this.#limits.maxFileBytes || (dead > live && dead >= MIN_DEAD_LINES)) {
      await this.#compact(entry, lease, target)
      return
    }
    await lease.check()
    const file = await open(target, 'a', 0o600)
    try {
      await file.writeFile(lines.join(''))
      await file.datasync()
    } catch (err) {
      // A write cut short (a full disk) is taken back at once: the next
      // writer would otherwise wait for the partial line (#dropTail). Under
      // the lock, the file ended at state.offset. D-AUTH-35.
      await file.truncate(state.offset).catch(() => {})
      throw err
    } finally {
      await file.close()
    }
    // Applied once on disk: after an error above, the records stay as the file has them.
    for (let i = 0; i < entries.length; i++) {
      state.apply(entries[i]!, sizes[i]!)
      state.offset += sizes[i]!
      state.lines++
      if (slice.due()) await slice.pause()
    }
  }

  /** Refuses a new record past `maxRecords`, or taking the live records past half of `maxFileBytes`. */
  #checkRoom (bytes: number): void {
    const { maxRecords, maxFileBytes } = this.#limits
    const { noun, name } = this.#kind
    const { table, liveBytes } = this.#state
    if (table.size >= maxRecords) throw storeFull(`The ${noun} store is full: it holds ${table.size} ${name}, its maxRecords; delete some or raise the limit`)
    // D-AUTH-25: the other half is room for changes between compactions.
    if (liveBytes + bytes > maxFileBytes / 2) throw storeFull(`The ${noun} store is full: its ${name} take ${liveBytes} bytes, and a new one would pass half of its maxFileBytes (${maxFileBytes}); delete some or raise the limit`)
  }

  /**
   * Writes the live records, `entry` applied, to a temp file (mode 0600),
   * fsyncs it and renames it over the store; then applies `entry` to the
   * records. In slices, so the event loop keeps serving. A result past
   * `maxFileBytes` is refused before the rename: the store is unchanged.
   */
  async #compact (entry: Entry<R>, lease: FileLease, target: string): Promise<void> {
    const kind = this.#kind
    const state = this.#state
    const max = this.#limits.maxFileBytes
    const temp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    const file = await open(temp, 'wx', 0o600)
    const header = headerLine(kind.name)
    const { id } = parseHeader(header)!
    let liveBytes = 0
    let size = 0
    try {
      let chunk = header + '\n'
      size = Buffer.byteLength(chunk)
      const slice = new TimeSlice()
      for (const record of recordsAfter(state.table, entry, kind)) {
        const line = encodeEntry({ put: record }) + '\n'
        const bytes = Buffer.byteLength(line)
        liveBytes += bytes
        size += bytes
        if (size > max) throw storeFull(`The ${kind.noun} store is full: its ${kind.name} would take ${size} bytes or more, over its maxFileBytes (${max}); delete some or raise the limit`)
        chunk += line
        if (chunk.length >= WRITE_CHUNK) {
          await file.writeFile(chunk)
          chunk = ''
        }
        if (slice.due()) await slice.pause()
      }
      await file.writeFile(chunk)
      await file.sync()
    } catch (err) {
      await file.close().catch(() => {})
      await unlink(temp).catch(() => {})
      throw err
    }
    await file.close()
    try {
      await lease.check()
      await rename(temp, target)
    } catch (err) {
      await unlink(temp).catch(() => {})
      throw err
    }
    // The rename is durable once the folder is: a power loss must not bring the old file back (D-AUTH-37).
    await syncFolder(dirname(target))
    const { ino } = await stat(target)
    state.apply(entry, 0)
    state.compacted(liveBytes, { format: 2, signature: `${ino}:${id}` }, size)
  }
}

/** The records of `table` once `entry` is applied, in the table's order (the table itself is left as it is). */
function * recordsAfter<R, T extends Table<R>> (table: T, entry: Entry<R>, kind: RecordKind<R, T>): Generator<R> {
  const put = 'put' in entry ? entry.put : undefined
  const replaced = put !== undefined ? kind.idOf(put) : 'delete' in entry ? entry.delete : undefined
  const used = 'used' in entry ? new Map(entry.used) : undefined
  for (const record of table.values()) {
    const id = kind.idOf(record)
    if (id === replaced) {
      // A changed record keeps its place (as in the table, a Map); a deleted one is left out.
      if (put !== undefined) yield put
      continue
    }
    const at = used?.get(id)
    yield at === undefined ? record : kind.withLastUse!(record, at)?.record ?? record
  }
  if (put !== undefined && !table.has(replaced!)) yield put
}

/** Fsyncs the folder `dir` (its entries); a platform that cannot (Windows) is left to its own durability. */
async function syncFolder (dir: string): Promise<void> {
  let handle: FileHandle
  try {
    handle = await open(dir, 'r')
  } catch (err) {
    if (['EISDIR', 'EPERM', 'EACCES'].includes((err as NodeJS.ErrnoException).code ?? '')) return
    throw err
  }
  try {
    await handle.sync()
  } catch (err) {
    if (!['EINVAL', 'EPERM', 'EBADF', 'EISDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err
  } finally {
    await handle.close()
  }
}

/**
 * Whether the byte before `offset` is a line's end: a journal read up to
 * `offset` that was since rewritten in place (same inode and header) almost
 * never has its old line boundary there, and is then read whole.
 */
async function endsLine (file: FileHandle, offset: number): Promise<boolean> {
  if (offset === 0) return true
  const byte = Buffer.alloc(1)
  const { bytesRead } = await file.read(byte, 0, 1, offset - 1)
  return bytesRead === 1 && byte[0] === 0x0a
}
