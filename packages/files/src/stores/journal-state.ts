import { encodeEntry, type Entry, type RecordKind, type Table } from './journal-format.js'

/** Which file a state was read from, and how. */
export interface FileVersion {
  /** 0: no file; 1: a version 1 document (read whole); 2: a journal. */
  readonly format: 0 | 1 | 2
  /**
   * Version 2: the inode and the header's id (a journal only grows, until
   * it is written whole again with a new id). Version 1: the inode, size
   * and mtime it was read at (any change means a full reload).
   */
  readonly signature: string
}

export const NO_FILE: FileVersion = Object.freeze({ format: 0, signature: 'missing' })

/**
 * The records of one version of a store file, with what the journal needs
 * to go on from there: where reading stopped, how many lines were read,
 * and how many bytes the live records' lines take (a compacted file's
 * size, less the header).
 */
export class JournalState<R, T extends Table<R>> {
  readonly table: T
  readonly #kind: RecordKind<R, T>
  #liveBytes = 0
  file: FileVersion
  /** Bytes read (always up to the end of a complete line). */
  offset = 0
  /** Complete lines read, the header included: the number of the last one. */
  lines = 0
  /** Lines after the header: records, deletes, last uses. */
  entries = 0

  constructor (kind: RecordKind<R, T>, file: FileVersion = NO_FILE, table: T = kind.newTable()) {
    this.#kind = kind
    this.file = file
    this.table = table
  }

  /** The bytes the live records would take in a compacted file (without the header). */
  get liveBytes (): number {
    return this.#liveBytes
  }

  /** Superseded lines: those a compaction would drop. */
  get deadLines (): number {
    return this.entries - this.table.size
  }

  /** Applies one entry; `bytes` is the size of its line (with its `\n`). */
  apply (entry: Entry<R>, bytes: number): void {
    this.entries++
    if ('put' in entry) {
      const id = this.#kind.idOf(entry.put)
      this.#liveBytes += bytes - this.#sizeOf(this.table.get(id))
      this.table.set(id, entry.put)
    } else if ('delete' in entry) {
      this.#liveBytes -= this.#sizeOf(this.table.get(entry.delete))
      this.table.delete(entry.delete)
    } else {
      for (const [id, at] of entry.used) {
        const record = this.table.get(id)
        if (record === undefined) continue
        const used = this.#kind.withLastUse!(record, at)
        if (used === undefined) continue
        this.#liveBytes += used.grows
        this.table.set(id, used.record)
      }
    }
  }

  // The size of a record's line in a compacted file: measured when a record
  // is replaced or removed (O(1) a change), rather than remembered for each.
  #sizeOf (record: R | undefined): number {
    return record === undefined ? 0 : Buffer.byteLength(encodeEntry({ put: record })) + 1
  }

  /** After a compaction: the live records' bytes as written, the file as now on disk. */
  compacted (liveBytes: number, file: FileVersion, size: number): void {
    this.#liveBytes = liveBytes
    this.file = file
    this.offset = size
    this.entries = this.table.size
    this.lines = this.table.size + 1
  }
}
