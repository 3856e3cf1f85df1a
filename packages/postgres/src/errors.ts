import createError from '@fastify/error'
import { createCodedError, type CodedError } from '@fastify-gatehouse/core'

// Every code of this package; listed in docs/error-codes.md.

// --- boot errors ----------------------------------------------------------------

/** A PostgreSQL store or `migrate()` was given bad options (no or two connections, a bad URL, schema or prefix): a boot error. */
export const GATEHOUSE_POSTGRES_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_POSTGRES_INVALID_OPTIONS', '%s: %s', 500, TypeError)

/**
 * `connect()` / `migrate()`: PostgreSQL did not answer within
 * `connectTimeout`, or refused. The message names the store and
 * host:port/database, never the password.
 */
export const GATEHOUSE_POSTGRES_CONNECT = createError<[store: string, address: string, problem: string, options?: { cause: unknown }]>(
  'GATEHOUSE_POSTGRES_CONNECT', '%s cannot reach PostgreSQL at %s: %s', 500)

/**
 * The database's Gatehouse schema is older than this code (migrations
 * pending): a boot error naming the command that brings it up to date.
 */
export const GATEHOUSE_POSTGRES_SCHEMA_BEHIND = createError<[string, string]>(
  'GATEHOUSE_POSTGRES_SCHEMA_BEHIND', 'the Gatehouse schema in %s is behind this version (pending: %s); run `gatehouse migrate up --database <url>`, or let the server migrate on start', 500)

/**
 * The database holds migrations this code does not know (a newer
 * Gatehouse migrated it): a boot error, since this code could misread it.
 */
export const GATEHOUSE_POSTGRES_SCHEMA_AHEAD = createError<[string, string]>(
  'GATEHOUSE_POSTGRES_SCHEMA_AHEAD', 'the Gatehouse schema in %s is newer than this version (unknown migrations: %s); upgrade Gatehouse or migrate down with the newer version', 500)

/** A migration failed; its transaction was rolled back (the schema is as it was before it). */
export const GATEHOUSE_POSTGRES_MIGRATION = createError<[problem: string, options?: { cause: unknown }]>(
  'GATEHOUSE_POSTGRES_MIGRATION', 'migration failed: %s', 500)

/**
 * The API key table took none of three new keys, each with a fresh random
 * id: it refuses inserts (a rule, a trigger), which is not chance. The
 * message names the table.
 */
export const GATEHOUSE_POSTGRES_INSERT_REFUSED = createError<[table: string]>(
  'GATEHOUSE_POSTGRES_INSERT_REFUSED', '%s took none of 3 new keys: the table refuses inserts (a rule or a trigger?)', 500)

/**
 * A prepared statement's name would be over PostgreSQL's 63 bytes (a bug of
 * this package: its `what` is too long). The message names the statement.
 */
export const GATEHOUSE_POSTGRES_STATEMENT_NAME = createError<[name: string]>(
  'GATEHOUSE_POSTGRES_STATEMENT_NAME', 'statement name over 63 bytes: %s', 500, TypeError)

// --- request failures -------------------------------------------------------------

/** A query failed for want of the database (down, unreachable, timed out): 503. */
export const POSTGRES_UNAVAILABLE = 'GATEHOUSE_POSTGRES_UNAVAILABLE'
/** 503 {@link POSTGRES_UNAVAILABLE}, `Retry-After: 5`; its message is written for the caller. */
export const GATEHOUSE_POSTGRES_UNAVAILABLE = createCodedError<typeof POSTGRES_UNAVAILABLE>(
  POSTGRES_UNAVAILABLE, 'database unavailable: try again shortly', 503, { expose: true, headers: { 'retry-after': '5' } })

/**
 * The error a store call rejects with when PostgreSQL does not answer in
 * time or cannot be reached: a 503 with Retry-After whose message names no
 * record (the cause keeps the driver's error). On a write it means the
 * outcome is unknown (the server may have applied it), so every store
 * write is safe to repeat.
 * D-POSTGRES-07.
 */
export function postgresUnavailable (cause: unknown): CodedError {
  return new GATEHOUSE_POSTGRES_UNAVAILABLE({ cause })
}
