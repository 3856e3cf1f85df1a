import type { Test } from 'tap'
import pg from 'pg'
import { migrate } from '../../src/index.js'
import { testDatabase, type TestDatabase } from './postgres.js'

/** Timeouts for a loaded 2-core machine: a slow answer is not a missing database. */
export const PATIENT = Object.freeze({ connectTimeout: 60_000, statementTimeout: 60_000 })

/** A database of this test's own, migrated up, dropped at the end of `t`; with a small pool for looking at the rows. */
export async function migratedDatabase (t: Test, schemas: ReadonlyArray<{ schema?: string, tablePrefix?: string }> = [{}]): Promise<TestDatabase & { pool: pg.Pool }> {
  const db = await testDatabase()
  t.teardown(db.drop)
  for (const names of schemas) await migrate({ url: db.url, ...names })
  const pool = testPool(db.url, 2)
  t.teardown(() => pool.end())
  return { ...db, pool }
}

/**
 * A pg Pool for a test: its idle clients' errors are absorbed (the test's
 * database is dropped with force at teardown, which ends them).
 */
export function testPool (url: string, max = 4): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max })
  pool.on('error', () => {})
  return pool
}

/** A pg Pool that records every prepared statement it runs (name, values and rows touched), for tests that count. */
export function recordingPool (url: string, max = 4): pg.Pool & { statements: Array<{ name: string | undefined, values: unknown[], rowCount: number | null }> } {
  const pool = testPool(url, max) as pg.Pool & { statements: Array<{ name: string | undefined, values: unknown[], rowCount: number | null }> }
  pool.statements = []
  const query = pool.query.bind(pool) as (config: string | pg.QueryConfig, values?: unknown[]) => Promise<pg.QueryResult>
  pool.query = (async (config: string | pg.QueryConfig, values?: unknown[]) => {
    const result = await query(config, values)
    if (typeof config !== 'string') pool.statements.push({ name: config.name, values: config.values ?? [], rowCount: result.rowCount })
    return result
  }) as typeof pool.query
  return pool
}
