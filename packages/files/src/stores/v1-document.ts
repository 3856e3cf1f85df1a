import { isPlainObject } from '@fastify-gatehouse/core'
import { encodeEntry, jsonProblem, type RecordKind, type Table } from './journal-format.js'
import type { JournalState } from './journal-state.js'
import { TimeSlice } from './time-slice.js'

/**
 * Reads a version 1 store file, the JSON document Gatehouse wrote before
 * the journal (`{ "version": 1, "users": [ … ] }`), into `state`. Read
 * whole (one `JSON.parse`), then checked and indexed a record at a time
 * with pauses; the next change converts the file to a journal. Throws an
 * `Error` saying what is wrong, with the JSON pointer of a bad record.
 * D-AUTH-23: version 1 files still open.
 */
export async function readVersion1<R, T extends Table<R>> (text: string, kind: RecordKind<R, T>, state: JournalState<R, T>): Promise<void> {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (err) {
    throw new Error(jsonProblem(err))
  }
  if (!isPlainObject(doc)) throw new Error('unexpected content at /: expected object')
  if (doc.version !== 1) throw new Error('unexpected content at /version: expected 1')
  const records = doc[kind.name]
  if (!Array.isArray(records)) throw new Error(`unexpected content at /${kind.name}: expected array`)
  const slice = new TimeSlice()
  for (let i = 0; i < records.length; i++) {
    const record: unknown = records[i]
    const problem = kind.invalid(record)
    if (problem !== undefined) throw new Error(`unexpected content at /${kind.name}/${i}${problem}`)
    state.apply({ put: record as R }, Buffer.byteLength(encodeEntry({ put: record as R })) + 1)
    if (slice.due()) await slice.pause()
  }
}
