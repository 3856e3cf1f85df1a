import { sessionConflict, storeUnavailable } from './errors.js'
import type { Session, SessionWrite as Write } from './session.js'
import { withinLimit } from './store-call.js'
import type { SessionStore, SessionWriteResult } from './session-store.js'

/** How often a write is re-based on a session that other requests keep changing before it is a 409. */
export const MAX_WRITE_ATTEMPTS = 20

async function call<T> (name: string, ms: number, work: () => T | Promise<T>): Promise<T> {
  try {
    return await withinLimit(`SessionStore.${name}`, ms, work)
  } catch (err) {
    throw storeUnavailable(err, `SessionStore.${name}`)
  }
}

/**
 * Saves a session write conditionally. When another request wrote the
 * session since it was loaded (`'conflict'`), the write is re-based on the
 * current record (its identity, tags and lifetime; this request's own
 * values on top) and tried again, at most {@link MAX_WRITE_ATTEMPTS} times,
 * then a 409. Resolves with the write that was saved, or `'gone'` when the
 * session it depends on was destroyed meanwhile (nothing is written).
 * Each store call has `ms` to answer (`callbackTimeout`), then 503.
 */
export async function writeSession (store: SessionStore, session: Session, first: Write, ms: number): Promise<Write | 'gone'> {
  let change = first
  for (let attempt = 1; ; attempt++) {
    const result: SessionWriteResult = await call('set', ms, () => store.set(change.key, change.record, change.loaded))
    if (result === 'written') break
    if (result === 'gone') return 'gone'
    // A new session's key taken: never happens with 256-bit ids, unless the store misbehaves.
    if (change.loaded === null || attempt >= MAX_WRITE_ATTEMPTS) throw sessionConflict()
    const loaded = change.loaded
    const fresh = await call('get', ms, () => store.get(loaded.key))
    // Gone, or (never by this component) another identity under the same key.
    if (fresh === null || fresh.identity !== change.record.identity) return 'gone'
    change = session.rebase(fresh)
  }
  if (change.staleKey !== null) await call('destroy', ms, () => store.destroy(change.staleKey!))
  return change
}
