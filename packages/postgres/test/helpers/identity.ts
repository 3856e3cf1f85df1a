import { createHash } from 'node:crypto'
import pg from 'pg'
import { migrate } from '../../src/index.js'
import { testDatabase, type TestDatabase } from './postgres.js'

/** Cheap scrypt for tests: hashing is not what they test. */
export const FAST_SCRYPT = Object.freeze({ N: 1024, r: 8, p: 1 })

/** A migrated database of the test's own, a pool on it, and a place for what must close before it is dropped. */
export interface OwnDatabase {
  readonly db: TestDatabase
  readonly url: string
  /** For plain SQL beside the stores (errors of its idle connections absorbed). */
  readonly admin: pg.Pool
  /** Registers `thing` to be closed at the end, before the database is dropped (last registered, first closed); returns it. */
  closeLater: <T extends { close: () => Promise<unknown> } | { end: () => Promise<unknown> }>(thing: T) => T
}

/** Creates and migrates a database for test `t`; everything registered is closed, then the database dropped, at its end. */
export async function ownDatabase (t: { teardown: (fn: () => Promise<void>) => void }): Promise<OwnDatabase> {
  const db = await testDatabase()
  const things: Array<{ close: () => Promise<unknown> } | { end: () => Promise<unknown> }> = []
  t.teardown(async () => {
    for (const thing of things.reverse()) await ('close' in thing ? thing.close() : thing.end()).catch(() => {})
    await db.drop()
  })
  await migrate({ url: db.url })
  const admin = new pg.Pool({ connectionString: db.url, max: 2 })
  admin.on('error', () => {})
  things.push(admin)
  return {
    db,
    url: db.url,
    admin,
    closeLater: (thing) => {
      // The database is dropped at the end: a connection still open then is ended by the server, which a pool reports as an 'error'.
      if (thing instanceof pg.Pool) thing.on('error', () => {})
      things.push(thing)
      return thing
    }
  }
}

/** Ends every listener connection to `database` (found by application name); resolves with how many. */
export async function terminateListeners (admin: pg.Pool, database: string): Promise<number> {
  const { rows } = await admin.query<{ ended: boolean }>(
    "select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = $1 and application_name = 'gatehouse-listener'", [database])
  return rows.filter((row) => row.ended).length
}

/** How many listener connections `database` has. */
export async function listenerCount (admin: pg.Pool, database: string): Promise<number> {
  const { rows } = await admin.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = 'gatehouse-listener'", [database])
  return rows[0]!.n
}

/** Whether a MaybePromise answer is a promise (a store's cache missed). */
export function isPromise (value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

/** The stored form of a full key's secret, `sha256$<base64url>`, as the stores write it. */
export function secretHashOf (key: string): string {
  return `sha256$${createHash('sha256').update(key.slice(21)).digest('base64url')}`
}

/**
 * Counts the statements a pool runs (wrapping `query` of every client it
 * hands out from now on), by their text; `statements` lists them in order.
 */
export function countStatements (pool: pg.Pool): { statements: string[], reset: () => void } {
  const statements: string[] = []
  const counting = (on: { query: (...args: unknown[]) => unknown }): void => {
    const query = on.query.bind(on)
    on.query = (...args: unknown[]) => {
      statements.push(typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string }).text))
      return query(...args)
    }
  }
  // On each client the pool hands out: pool.query checks one out too, and a
  // transaction's statements run on its client, not through pool.query.
  const wrapped = new WeakSet<object>()
  pool.on('acquire', (client) => {
    if (wrapped.has(client)) return
    wrapped.add(client)
    counting(client as unknown as { query: (...args: unknown[]) => unknown })
  })
  return { statements, reset: () => { statements.length = 0 } }
}
