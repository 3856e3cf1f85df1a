import type { SqlNames } from '../names.js'

/** The statements of {@link PostgresApiKeyStore}, for the schema and prefix in `names`. */
export interface ApiKeyStatements {
  /** $1 key id: the row (the primary-key index). */
  readonly byId: string
  /** $1–$8: a new row; nothing when the key id exists. */
  readonly insert: string
  /** $1 key id. */
  readonly revoke: string
  readonly delete: string
  readonly list: string
  /** $1 key ids, $2 their last use (same order): one statement for every key used since the last flush; never moves a time back. */
  readonly touch: string
  /** $1 a JSON array of rows: inserts those whose key id is new. */
  readonly import: string
}

export function apiKeyStatements (names: SqlNames): ApiKeyStatements {
  const keys = names.table('api_keys')
  const columns = 'key_id, label, tags, enabled, expires_at, created_at, last_used_at, secret_hash'
  return Object.freeze({
    byId: `select ${columns} from ${keys} where key_id = $1`,
    insert: `insert into ${keys} (${columns}) values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (key_id) do nothing`,
    revoke: `update ${keys} set enabled = false where key_id = $1`,
    delete: `delete from ${keys} where key_id = $1`,
    list: `select key_id, label, tags, enabled, expires_at, created_at, last_used_at from ${keys} order by created_at, key_id`,
    touch: `update ${keys} as k set last_used_at = u.at
      from unnest($1::text[], $2::timestamptz[]) as u(key_id, at)
      where k.key_id = u.key_id and (k.last_used_at is null or k.last_used_at < u.at)`,
    import: `insert into ${keys} (${columns})
      select r.key_id, r.label, array(select jsonb_array_elements_text(r.tags)), r.enabled, r.expires_at, r.created_at, r.last_used_at, r.secret_hash
      from jsonb_to_recordset($1::jsonb) as r(key_id text, label text, tags jsonb, enabled boolean, expires_at timestamptz, created_at timestamptz, last_used_at timestamptz, secret_hash text)
      on conflict (key_id) do nothing`
  })
}
