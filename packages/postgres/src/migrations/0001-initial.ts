import { sql, type Kysely, type Migration } from 'kysely'
import type { SqlNames } from '../names.js'
import { lockoutStepFunction } from './0001-lockout-step.js'

// The first schema: users, API keys, sessions and lockout counters, and the
// trigger that tells every instance which user or key changed (LISTEN/NOTIFY).
// Times a request compares (session and lockout deadlines) are bigint
// milliseconds, as the stores hand them over; times people read are timestamptz.

function statements (n: SqlNames): { up: string[], down: string[] } {
  const users = n.table('users')
  const keys = n.table('api_keys')
  const sessions = n.table('sessions')
  const lockout = n.table('lockout')
  const notify = n.table('notify_change')
  const lockoutStep = lockoutStepFunction(n)
  const index = (name: string): string => `"${n.tablePrefix}${name}"`
  return {
    up: [
      `create table ${users} (
        identity text primary key,
        tags text[] not null,
        enabled boolean not null,
        password_hash text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`,
      `create table ${keys} (
        key_id text primary key,
        label text not null,
        tags text[] not null,
        enabled boolean not null,
        expires_at timestamptz,
        created_at timestamptz not null,
        last_used_at timestamptz,
        secret_hash text not null
      )`,
      // A session: the record's JSON (identity, tags, data, createdAt, via,
      // stamp) as json, exact text (jsonb refuses \u0000 in a string); the
      // identity again as a column for destroyAllFor; the deadline and the
      // version as columns for the conditional writes. Expired rows count as
      // absent and are swept by expires_at. D-POSTGRES-08.
      `create table ${sessions} (
        key text primary key,
        identity text,
        record json not null,
        expires_at bigint not null,
        version integer not null
      )`,
      `create index ${index('sessions_identity')} on ${sessions} (identity) where identity is not null`,
      `create index ${index('sessions_expires_at')} on ${sessions} (expires_at)`,
      `create table ${lockout} (
        key text primary key,
        failures integer not null,
        locked_until bigint not null,
        last_failure bigint not null,
        claims bigint[] not null,
        expires_at bigint not null
      )`,
      `create index ${index('lockout_expires_at')} on ${lockout} (expires_at)`,
      lockoutStep.create,
      // A row's kind and id on the schema's channel, at commit; an update of
      // last_used_at alone (the usage flush) tells nobody.
      `create function ${notify}() returns trigger language plpgsql as $$
      begin
        if TG_OP <> 'INSERT' then
          perform pg_notify('${n.channel}', TG_ARGV[0] || ':' || (to_jsonb(OLD) ->> TG_ARGV[1]));
        end if;
        if TG_OP = 'INSERT' or (TG_OP = 'UPDATE' and (to_jsonb(NEW) ->> TG_ARGV[1]) is distinct from (to_jsonb(OLD) ->> TG_ARGV[1])) then
          perform pg_notify('${n.channel}', TG_ARGV[0] || ':' || (to_jsonb(NEW) ->> TG_ARGV[1]));
        end if;
        return null;
      end
      $$`,
      `create trigger ${index('users_changed')} after insert or update or delete on ${users}
        for each row execute function ${notify}('user', 'identity')`,
      `create trigger ${index('api_keys_changed')} after insert or delete or update of key_id, label, tags, enabled, expires_at, secret_hash on ${keys}
        for each row execute function ${notify}('key', 'key_id')`
    ],
    down: [
      lockoutStep.drop,
      `drop table ${lockout}`,
      `drop table ${sessions}`,
      `drop table ${keys}`,
      `drop table ${users}`,
      `drop function ${notify}()`
    ]
  }
}

/** Migration 0001 for the schema and prefix in `names`. */
export function initial (names: SqlNames): Migration {
  const { up, down } = statements(names)
  return {
    async up (db: Kysely<unknown>) {
      for (const text of up) await sql.raw(text).execute(db)
    },
    async down (db: Kysely<unknown>) {
      for (const text of down) await sql.raw(text).execute(db)
    }
  }
}
