import type { SqlNames } from '../names.js'
import { statement, type Statement } from '../statement.js'

/** The statements of {@link PostgresApiKeyStore}, for the schema and prefix in `names`. */
export interface ApiKeyStatements {
  /** $1 key id: the row (the primary-key index). */
  readonly byId: Statement
  /** $1–$8: a new row; nothing when the key id exists. */
  readonly insert: Statement
  /** $1 key id. */
  readonly revoke: Statement
  readonly delete: Statement
  readonly list: Statement
  /** $1 key ids, $2 their last use (same order): one statement for every key used since the last flush; never moves a time back. */
  readonly touch: Statement
  /** $1 a JSON array of rows: inserts those whose key id is new. */
  readonly import: Statement
}

export function apiKeyStatements (names: SqlNames): ApiKeyStatements {
  const keys = names.table('api_keys')
  const columns = 'key_id, label, tags, enabled, expires_at, created_at, last_used_at, secret_hash'
  return Object.freeze({
    byId: statement(names, 'api_keys.byId', `select ${columns} from ${keys} where key_id = $1`),
    insert: statement(names, 'api_keys.insert', `insert into ${keys} (${columns}) values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (key_id) do nothing`),
    revoke: statement(names, 'api_keys.revoke', `update ${keys} set enabled = false where key_id = $1`),
    delete: statement(names, 'api_keys.delete', `delete from ${keys} where key_id = $1`),
    list: statement(names, 'api_keys.list', `select key_id, label, tags, enabled, expires_at, created_at, last_used_at from ${keys} order by created_at, key_id`),
    touch: statement(names, 'api_keys.touch', `update ${keys} as k set last_used_at = u.at
      from unnest($1::text[], $2::timestamptz[]) as u(key_id, at)
      where k.key_id = u.key_id and (k.last_used_at is null or k.last_used_at < u.at)`),
    import: statement(names, 'api_keys.import', `insert into ${keys} (${columns})
      select r.key_id, r.label, array(select jsonb_array_elements_text(r.tags)), r.enabled, r.expires_at, r.created_at, r.last_used_at, r.secret_hash
      from jsonb_to_recordset($1::jsonb) as r(key_id text, label text, tags jsonb, enabled boolean, expires_at timestamptz, created_at timestamptz, last_used_at timestamptz, secret_hash text)
      on conflict (key_id) do nothing`)
  })
}
