import type { SqlNames } from './names.js'
import { statement, type Statement } from './statement.js'
import { sweepStatement } from './expiry-sweep.js'

/** The statements of PostgresSessionStore; every one finds its rows by an index (test/explain.test.ts). */
export interface SessionStatements {
  /** $1 key, $2 now → record, expires_at, version of the live row. */
  readonly get: Statement
  /**
   * A new session: $1 key, $2 identity, $3 record, $4 expires_at, $5 version,
   * $6 now. Inserted, or written over an expired row; a live row is left
   * alone (no row counted: 'conflict').
   */
  readonly insert: Statement
  /**
   * A change, under the key it was loaded from or a regenerated one: $1 the
   * loaded key, $2 the key to write (the same, or the new id's), $3 identity,
   * $4 record, $5 expires_at, $6 version, $7 the loaded version, $8 now. One
   * row, changed in place (its key too) only while live at the loaded version.
   */
  readonly write: Statement
  /**
   * A regenerated id: as `write` with $2 another key, and in the same
   * statement a note under the loaded key naming the new one (version 0,
   * no identity, `{ "movedTo": key }`, the new deadline), for `destroy`.
   * D-SESSION-28.
   */
  readonly move: Statement
  /** Why a write touched nothing: $1 key, $2 now → version, live. */
  readonly probe: Statement
  /** Frees a regenerated id's key from an expired row: $1 key, $2 now. */
  readonly clearExpired: Statement
  /** $1 key, $2 expires_at, $3 now: later only, live rows only. */
  readonly touch: Statement
  /** $1 key → version, the key it moved to (a note) or null. */
  readonly destroy: Statement
  /** $1 identity, $2 now → count of the live sessions ended (expired ones go too). */
  readonly destroyAllFor: Statement
  /** $1 identity, $2 now, $3 limit → key, record, expires_at, version of live rows, latest deadline first. */
  readonly listFor: Statement
  /** $1 now, $2 batch. */
  readonly sweep: Statement
}

/** The session statements for the schema and prefix in `names`. */
export function sessionStatements (names: SqlNames): SessionStatements {
  const t = names.table('sessions')
  const s = (what: string, text: string): Statement => statement(names, `sessions.${what}`, text)
  return Object.freeze({
    get: s('get', `select record, expires_at, version from ${t} where key = $1 and expires_at > $2 and version > 0`),
    insert: s('insert', `insert into ${t} as s (key, identity, record, expires_at, version) values ($1, $2, $3, $4, $5)
      on conflict (key) do update set identity = excluded.identity, record = excluded.record, expires_at = excluded.expires_at, version = excluded.version
      where s.expires_at <= $6`),
    // D-POSTGRES-09: a regenerated id moves the row (its key changes in
    // place), so a concurrent destroyAllFor that waits on the row deletes it
    // under its new key; a delete and an insert would let it escape.
    write: s('write', `update ${t} set key = $2, identity = $3, record = $4, expires_at = $5, version = $6
      where key = $1 and version = $7 and expires_at > $8`),
    move: s('move', `with moved as (update ${t} set key = $2, identity = $3, record = $4, expires_at = $5, version = $6
      where key = $1 and version = $7 and version > 0 and expires_at > $8 returning key)
      insert into ${t} (key, identity, record, expires_at, version) select $1, null, json_build_object('movedTo', moved.key), $5, 0 from moved`),
    // A note (version 0) is no session: a write that loaded the moved key finds it gone.
    probe: s('probe', `select version, expires_at > $2 and version > 0 as live from ${t} where key = $1`),
    clearExpired: s('clear-expired', `delete from ${t} where key = $1 and expires_at <= $2`),
    touch: s('touch', `update ${t} set expires_at = $2 where key = $1 and expires_at > $3 and expires_at < $2 and version > 0`),
    destroy: s('destroy', `delete from ${t} where key = $1 returning version, case when version = 0 then record->>'movedTo' end as moved_to`),
    destroyAllFor: s('destroy-all-for', `with ended as (delete from ${t} where identity = $1 returning expires_at)
      select (count(*) filter (where expires_at > $2))::integer as ended from ended`),
    listFor: s('list-for', `select key, record, expires_at, version from ${t} where identity = $1 and expires_at > $2
      order by expires_at desc limit $3`),
    sweep: sweepStatement(names, 'sessions')
  })
}
