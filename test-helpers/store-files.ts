// Reads and writes Gatehouse's store files (users.json, keys.json) the way
// a person or a script would, without the stores: an independent reading
// of the format (packages/files/src/stores/journal-format.ts, D-AUTH-23).
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'

type StoreName = 'users' | 'keys'
type Row = Record<string, unknown>

/** What a store file holds. */
export interface StoreFile {
  /** 1: the JSON document of older versions; 2: the journal. */
  readonly version: 1 | 2
  readonly name: StoreName
  /** The live records by id (identity or keyId), in the order first put (a record put again keeps its place, as in the stores). */
  readonly records: Map<string, Row>
  /** Version 2: every complete line after the header, parsed. */
  readonly entries: Row[]
  /** Version 2: bytes after the last `\n` (a write under way or cut short). */
  readonly tail: string
}

const idOf = (name: StoreName, record: Row): string => String(name === 'users' ? record.identity : record.keyId)

/** Reads `path` as a store file of either version; throws when it is neither. */
export function readStoreFile (path: string): StoreFile {
  const text = readFileSync(path, 'utf8')
  const newline = text.indexOf('\n')
  const first = newline === -1 ? '' : text.slice(0, newline)
  let header: Row | undefined
  try {
    header = JSON.parse(first) as Row
  } catch {}
  if (header?.gatehouse === undefined) {
    const doc = JSON.parse(text) as Row
    const name: StoreName = Array.isArray(doc.users) ? 'users' : 'keys'
    const rows = doc[name] as Row[]
    return { version: 1, name, records: new Map(rows.map((r) => [idOf(name, r), r])), entries: [], tail: '' }
  }
  if (header.version !== 2) throw new Error(`unknown store file version ${String(header.version)}`)
  const name = header.gatehouse as StoreName
  const end = text.lastIndexOf('\n')
  const entries = text.slice(newline + 1, end + 1).split('\n').slice(0, -1).map((line) => JSON.parse(line) as Row)
  const records = new Map<string, Row>()
  for (const entry of entries) {
    if (entry.put !== undefined) {
      const record = entry.put as Row
      records.set(idOf(name, record), record)
    } else if (entry.delete !== undefined) {
      records.delete(entry.delete as string)
    } else if (entry.used !== undefined) {
      for (const [id, at] of Object.entries(entry.used as Record<string, string>)) {
        const record = records.get(id)
        if (record !== undefined && (record.lastUsedAt === null || (record.lastUsedAt as string) < at)) records.set(id, { ...record, lastUsedAt: at })
      }
    } else {
      throw new Error(`unknown line ${JSON.stringify(entry)}`)
    }
  }
  return { version: 2, name, records, entries, tail: text.slice(end + 1) }
}

/** A header line of a version 2 file of `name`, with a new random id (as a store writes when it writes a file whole). */
export const header = (name: StoreName): string => JSON.stringify({ gatehouse: name, version: 2, id: randomBytes(8).toString('hex') })

/** What a header line written by a store looks like. */
export const HEADER = (name: StoreName): RegExp => new RegExp(`^\\{"gatehouse":"${name}","version":2,"id":"[0-9a-f]{16}"\\}$`)

/**
 * Writes a version 2 store file (mode 0600) holding `records` as put lines,
 * then `lines` as they are (deletes, last uses, anything to test a reader
 * with). Quick for any number of records: one write.
 */
export function writeStoreFile (path: string, name: StoreName, records: Iterable<Row>, lines: string[] = []): void {
  const parts = [header(name)]
  for (const record of records) parts.push(JSON.stringify({ put: record }))
  parts.push(...lines)
  writeFileSync(path, parts.join('\n') + '\n', { mode: 0o600 })
}
