import type pg from 'pg'
import { sha256 } from '@fastify-gatehouse/core'
import { unavailableOr } from './connection.js'
import { GATEHOUSE_POSTGRES_STATEMENT_NAME } from './errors.js'
import type { SqlNames } from './names.js'

/**
 * A statement a store runs on every request: its text, and a name under
 * which each connection prepares it once (parsed and planned once, then
 * only bound and run). A pool you give may serve stores of several
 * deployments, and one name must always mean one text on a connection:
 * the name ends with a digest of the schema, prefix and text. PostgreSQL
 * compares only the first 63 bytes of a name, so the name is kept short
 * (`gatehouse:<what>:<16 characters>`), whatever the schema and prefix.
 * D-POSTGRES-12.
 */
export interface Statement {
  readonly name: string
  readonly text: string
}

/** A {@link Statement} named `<what>` within the schema and prefix of `names`. */
export function statement (names: SqlNames, what: string, text: string): Statement {
  const name = `gatehouse:${what}:${sha256(`${names.schema}\0${names.tablePrefix}\0${text}`).slice(0, 16)}`
  if (Buffer.byteLength(name) > 63) throw new GATEHOUSE_POSTGRES_STATEMENT_NAME(name)
  return Object.freeze({ name, text })
}

/** Runs a prepared statement; a database that is away becomes `GATEHOUSE_POSTGRES_UNAVAILABLE`. */
export async function run<R extends pg.QueryResultRow = pg.QueryResultRow> (on: Pick<pg.Pool, 'query'>, { name, text }: Statement, values: unknown[]): Promise<pg.QueryResult<R>> {
  try {
    return await on.query<R>({ name, text, values })
  } catch (err) {
    return unavailableOr(err)
  }
}

/**
 * `value` as PostgreSQL text can hold it: a NUL (which text cannot hold) becomes U+FFFD,
 * as a lone surrogate already does when pg encodes a string as UTF-8.
 * D-POSTGRES-08.
 */
export function asText (value: string): string {
  return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value
}
