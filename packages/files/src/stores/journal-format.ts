import { randomBytes } from 'node:crypto'
import type { RecordKind, StoreName, Table } from '@fastify-gatehouse/auth'
import { isPlainObject } from '@fastify-gatehouse/core'

/**
 * The store file format, version 2: JSON Lines, appended to.
 *
 * ```
 * {"gatehouse":"keys","version":2,"id":"…"} line 1: the header
 * {"put":{…a whole record…}}                 a record added or replaced
 * {"delete":"<id>"}                          a record removed
 * {"used":{"<keyId>":"<ISO time>",…}}        keys only: last uses, at most 1000 a line
 * ```
 *
 * The header's `id` is new each time the file is written whole (created or
 * compacted): a reader goes on from where it stopped only in the file it
 * read (inode numbers are reused). The records are the fold of the lines.
 * Only complete lines count: a tail
 * without its `\n` is a write under way (or cut short by a crash) and is
 * ignored by readers; the next writer truncates it once the file has been
 * still for 10 s (journal-file.ts, #dropTail).
 * D-AUTH-23.
 */
export const FORMAT_VERSION = 2

/** How many last uses one `used` line holds at most (a line stays small enough to parse between two yields). */
export const USED_PER_LINE = 1000

// The record kinds and tables are auth's (its memory stores keep the same
// tables); the journal folds its lines into them.
export type { RecordKind, StoreName, Table } from '@fastify-gatehouse/auth'

/** One change: a line of the journal. */
export type Entry<R> =
  | { readonly put: R }
  | { readonly delete: string }
  | { readonly used: ReadonlyArray<readonly [string, string]> }

/** A header line (without its `\n`) for a file written whole now. */
export function headerLine (name: StoreName): string {
  return JSON.stringify({ gatehouse: name, version: FORMAT_VERSION, id: randomBytes(8).toString('hex') })
}

/** A version 2 header, as read. */
export interface Header {
  readonly gatehouse: unknown
  readonly version: unknown
  /** '' when the header has none (a file written by hand). */
  readonly id: string
}

/** The header in `line` (the file's first line): an object with a `gatehouse` member; else undefined (a version 1 document). */
export function parseHeader (line: string): Header | undefined {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  if (!isPlainObject(value) || !Object.hasOwn(value, 'gatehouse')) return undefined
  return { gatehouse: value.gatehouse, version: value.version, id: typeof value.id === 'string' ? value.id : '' }
}

/** Checks a header for the store `name`: the problem, or undefined. */
export function headerProblem (header: Header, name: StoreName): string | undefined {
  if (header.gatehouse !== name) return `a store of ${JSON.stringify(header.gatehouse)}, not of ${name}`
  if (header.version !== FORMAT_VERSION) return `format version ${JSON.stringify(header.version)}: this Gatehouse reads version ${FORMAT_VERSION} (was the file written by a newer one?)`
  return undefined
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T[0-9:.]+Z$/

/** An entry's line (without its `\n`). */
export function encodeEntry<R> (entry: Entry<R>): string {
  if ('used' in entry) return JSON.stringify({ used: Object.fromEntries(entry.used) })
  return JSON.stringify(entry)
}

/**
 * Parses and checks one line after the header; throws an `Error` whose
 * message says what is wrong (the caller names the file and the line).
 */
/**
 * Why JSON.parse refused a text, without the text: V8's message quotes the
 * bytes around the fault, which in a store file may be part of a password
 * hash or a key digest, and the message reaches the CLI and logs.
 */
export function jsonProblem (err: unknown): string {
  const position = /position (\d+)/.exec((err as Error).message)?.[1]
  return `not valid JSON${position === undefined ? '' : ` (at character ${position})`}`
}

export function parseEntry<R, T extends Table<R>> (line: string, kind: RecordKind<R, T>): Entry<R> {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (err) {
    throw new Error(jsonProblem(err))
  }
  if (!isPlainObject(value)) throw new Error('unexpected content: expected an object')
  const keys = Object.keys(value)
  if (keys.length === 1 && keys[0] === 'put') {
    const problem = kind.invalid(value.put)
    if (problem !== undefined) throw new Error(`unexpected content at /put${problem}`)
    return value as { put: R }
  }
  if (keys.length === 1 && keys[0] === 'delete') {
    const problem = kind.invalidId(value.delete)
    if (problem !== undefined) throw new Error(`unexpected content at /delete: ${problem}`)
    return value as { delete: string }
  }
  if (keys.length === 1 && keys[0] === 'used' && kind.withLastUse !== undefined && isPlainObject(value.used)) {
    const used = Object.entries(value.used)
    for (const [id, at] of used) {
      const problem = kind.invalidId(id) ?? (typeof at === 'string' && ISO_DATE.test(at) ? undefined : 'expected an ISO 8601 time')
      if (problem !== undefined) throw new Error(`unexpected content at /used/${id}: ${problem}`)
    }
    return { used: used as Array<[string, string]> }
  }
  throw new Error(`unexpected content: expected one of ${kind.withLastUse === undefined ? 'put, delete' : 'put, delete, used'}`)
}
