import createError from '@fastify/error'
import { HttpError } from '@fastify-gatehouse/core'

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

// --- request failures -------------------------------------------------------------

/** A query failed for want of the database (down, unreachable, timed out): 503. */
export const POSTGRES_UNAVAILABLE = 'GATEHOUSE_POSTGRES_UNAVAILABLE'

/**
 * The error a store call rejects with when PostgreSQL does not answer in
 * time or cannot be reached: a 503 with Retry-After whose message names no
 * record (the cause keeps the driver's error). On a write it means the
 * outcome is unknown (the server may have applied it), so every store
 * write is safe to repeat.
 * D-POSTGRES-07.
 */
export function postgresUnavailable (cause: unknown): HttpError {
  return new HttpError(503, 'database unavailable: try again shortly', { code: POSTGRES_UNAVAILABLE, headers: { 'retry-after': '5' }, cause })
}
