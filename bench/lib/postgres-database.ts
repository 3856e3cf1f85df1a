// The PostgreSQL benchmark's database: one of its own, created at the start
// and dropped at the end (as the package's tests do), migrated by the
// package itself, and seeded in one `insert … select … from
// generate_series` per table, so that a million rows take seconds.
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import pg from 'pg'

/** A database of the run's own, and how to drop it. */
export interface BenchDatabase {
  readonly name: string
  readonly url: string
  drop: () => Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])

/** Whether a URL's host is this machine's loopback (the benchmark measures nothing else). */
export function onLoopback (url: string): boolean {
  try {
    return LOOPBACK.has(new URL(url).hostname)
  } catch {
    return false
  }
}

/** A URL like `base` for another database. */
function urlFor (base: string, database: string): string {
  const url = new URL(base)
  url.pathname = `/${database}`
  return url.href
}

/** Runs statements on one connection of `url`, one after another; answers the last one's rows. */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow> (url: string, ...statements: Array<string | [string, unknown[]]>): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 30_000 })
  client.on('error', () => {})
  await client.connect()
  try {
    let rows: R[] = []
    for (const s of statements) rows = (typeof s === 'string' ? await client.query<R>(s) : await client.query<R>(s[0], s[1])).rows
    return rows
  } finally {
    await client.end().catch(() => {})
  }
}

/** Creates `gatehouse_bench_<random>` on the server of `adminUrl`. */
export async function benchDatabase (adminUrl: string): Promise<BenchDatabase> {
  const name = `gatehouse_bench_${randomBytes(6).toString('hex')}`
  await sql(adminUrl, `create database ${name}`)
  return {
    name,
    url: urlFor(adminUrl, name),
    drop: async () => { await sql(adminUrl, `drop database if exists ${name} with (force)`) }
  }
}

// base64url of a SHA-256, as `sha256()` of @fastify-gatehouse/core answers it.
const b64 = (expression: string): string => `translate(rtrim(encode(sha256(convert_to(${expression}, 'UTF8')), 'base64'), '='), '+/', '-_')`

/**
 * Adds rows `from` … `to - 1` to api_keys and users (schema `gatehouse`),
 * then VACUUM ANALYZE both. Key i is the growth benchmark's key i
 * (growth-seed.ts: id i in 16 hex digits, secret the base64url SHA-256 of
 * `growth-bench:i`) with its real secret hash, so every seeded key
 * verifies; user i is `user-<i in 6 digits>` with `passwordHash`. The
 * change-notification triggers are off while seeding (a million
 * notifications nobody listens to); no store is connected meanwhile.
 * Answers the seconds it took. D-BENCH-06.
 */
export async function seedRows (url: string, from: number, to: number, passwordHash: string): Promise<number> {
  const start = performance.now()
  if (to > from) {
    await sql(url,
      'begin',
      'alter table gatehouse.api_keys disable trigger user',
      'alter table gatehouse.users disable trigger user',
      [`insert into gatehouse.api_keys (key_id, label, tags, enabled, expires_at, created_at, last_used_at, secret_hash)
        select lpad(to_hex(i), 16, '0'), 'service ' || i, '{api}', true, null, now(), null, 'sha256$' || ${b64('s.secret')}
        from generate_series($1::int, $2::int - 1) as i,
        lateral (select ${b64("'growth-bench:' || i")} as secret) as s`, [from, to]],
      [`insert into gatehouse.users (identity, tags, enabled, password_hash, created_at, updated_at)
        select 'user-' || lpad(i::text, 6, '0'), '{staff}', true, $3, now(), now()
        from generate_series($1::int, $2::int - 1) as i`, [from, to, passwordHash]],
      'alter table gatehouse.api_keys enable trigger user',
      'alter table gatehouse.users enable trigger user',
      'commit')
  }
  await sql(url, 'vacuum analyze gatehouse.api_keys', 'vacuum analyze gatehouse.users')
  return (performance.now() - start) / 1000
}

/** api_keys and users with their indexes, bytes. */
export async function tableBytes (url: string): Promise<number> {
  const [row] = await sql<{ bytes: string }>(url, "select pg_total_relation_size('gatehouse.api_keys') + pg_total_relation_size('gatehouse.users') as bytes")
  return Number(row!.bytes)
}

/** `PostgreSQL 15.20`: the server's version, for the table's machine note. */
export async function serverVersion (url: string): Promise<string> {
  const [row] = await sql<{ server_version: string }>(url, 'show server_version')
  return `PostgreSQL ${row!.server_version.split(' ')[0]!}`
}
