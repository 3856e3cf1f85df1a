import type { SqlNames } from '../names.js'
import { statement, type Statement } from '../statement.js'

/** The statements of {@link PostgresUserStore}, for the schema and prefix in `names`. */
export interface UserStatements {
  /** $1 identity: the row (the primary-key index). */
  readonly byIdentity: Statement
  /** $1–$6: a new row; nothing when the identity exists. */
  readonly insert: Statement
  /** $1 identity, $2 value, $3 updated_at. */
  readonly setPassword: Statement
  readonly setTags: Statement
  readonly setEnabled: Statement
  /** $1 identity. */
  readonly delete: Statement
  readonly list: Statement
  /** $1 a JSON array of rows: inserts those whose identity is new. */
  readonly import: Statement
}

export function userStatements (names: SqlNames): UserStatements {
  const users = names.table('users')
  const columns = 'identity, tags, enabled, password_hash, created_at, updated_at'
  const update = (column: string): string => `update ${users} set ${column} = $2, updated_at = $3 where identity = $1`
  return Object.freeze({
    byIdentity: statement(names, 'users.byIdentity', `select ${columns} from ${users} where identity = $1`),
    insert: statement(names, 'users.insert', `insert into ${users} (${columns}) values ($1, $2, $3, $4, $5, $6) on conflict (identity) do nothing`),
    setPassword: statement(names, 'users.setPassword', update('password_hash')),
    setTags: statement(names, 'users.setTags', update('tags')),
    setEnabled: statement(names, 'users.setEnabled', update('enabled')),
    delete: statement(names, 'users.delete', `delete from ${users} where identity = $1`),
    list: statement(names, 'users.list', `select identity, tags, enabled, created_at, updated_at from ${users} order by created_at, identity`),
    import: statement(names, 'users.import', `insert into ${users} (${columns})
      select r.identity, array(select jsonb_array_elements_text(r.tags)), r.enabled, r.password_hash, r.created_at, r.updated_at
      from jsonb_to_recordset($1::jsonb) as r(identity text, tags jsonb, enabled boolean, password_hash text, created_at timestamptz, updated_at timestamptz)
      on conflict (identity) do nothing`)
  })
}
