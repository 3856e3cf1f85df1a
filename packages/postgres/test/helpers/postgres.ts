import { randomBytes } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import pg from 'pg'

/**
 * The PostgreSQL the tests use: $GATEHOUSE_TEST_POSTGRES_URL, else the one
 * on 127.0.0.1:5432 (trust auth) as the `postgres` role. Tests never write
 * outside a database of their own (see {@link testDatabase}).
 */
export const POSTGRES_URL = process.env.GATEHOUSE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const REQUIRED = process.env.GATEHOUSE_REQUIRE_POSTGRES === '1'

/** A URL like {@link POSTGRES_URL} for another database. */
export function urlFor (database: string, base = POSTGRES_URL): string {
  const url = new URL(base)
  url.pathname = `/${database}`
  return url.href
}

/**
 * Whether a PostgreSQL answers at `url` within `timeout` ms. A missing one
 * refuses the connection at once; the long default is for a present one on
 * a busy machine, which must not be mistaken for a missing one.
 */
export async function postgresAnswers (url = POSTGRES_URL, timeout = 30_000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeout })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * Test options for tests that need PostgreSQL: `{}` when it answers;
 * `{ skip }` with a visible reason when it does not; and when
 * GATEHOUSE_REQUIRE_POSTGRES=1 (CI), a missing PostgreSQL is an error.
 */
export async function needPostgres (): Promise<{ skip?: string }> {
  if (await postgresAnswers()) return {}
  if (REQUIRED) throw new Error(`GATEHOUSE_REQUIRE_POSTGRES=1 but no PostgreSQL answers at ${new URL(POSTGRES_URL).host}`)
  return { skip: `no PostgreSQL at ${new URL(POSTGRES_URL).host} (set GATEHOUSE_REQUIRE_POSTGRES=1 to fail instead)` }
}

/** Like {@link needPostgres}, for tests that also start clusters of their own (initdb and postgres must be installed). */
export async function needPostgresServer (): Promise<{ skip?: string }> {
  const shared = await needPostgres()
  if (shared.skip !== undefined) return shared
  if (postgresBin('initdb') !== undefined) return {}
  if (REQUIRED) throw new Error('GATEHOUSE_REQUIRE_POSTGRES=1 but initdb is not installed')
  return { skip: 'initdb is not installed (set GATEHOUSE_REQUIRE_POSTGRES=1 to fail instead)' }
}

/** The path of a PostgreSQL server program (initdb, pg_ctl, postgres), from PATH or Debian's /usr/lib/postgresql/<v>/bin. */
export function postgresBin (name: string): string | undefined {
  if (spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0) return name
  const listed = spawnSync('sh', ['-c', `ls -d /usr/lib/postgresql/*/bin/${name} 2>/dev/null | sort -V | tail -n 1`], { encoding: 'utf8' }).stdout.trim()
  return listed === '' ? undefined : listed
}

/** A database of this test's own, and how to drop it. */
export interface TestDatabase {
  readonly name: string
  readonly url: string
  /** Drops the database (ending any connection still open to it). */
  drop: () => Promise<void>
}

/**
 * Creates a database no other test (or agent) uses, named
 * `gatehouse_test_<random>`; `t.teardown(db.drop)` removes it.
 */
export async function testDatabase (base = POSTGRES_URL): Promise<TestDatabase> {
  const name = `gatehouse_test_${randomBytes(6).toString('hex')}`
  await admin(base, `create database ${name}`)
  return {
    name,
    url: urlFor(name, base),
    drop: async () => { await admin(base, `drop database if exists ${name} with (force)`) }
  }
}

async function admin (url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 60_000 })
  client.on('error', () => {})
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end().catch(() => {})
  }
}
