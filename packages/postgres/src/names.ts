import pg from 'pg'
import { GATEHOUSE_POSTGRES_INVALID_OPTIONS } from './errors.js'

// Lower-case SQL identifiers only: no quoting surprises, and room for the
// longest table and channel name (`<schema>_<prefix>changes`) under
// PostgreSQL's 63-byte limit.
const SCHEMA = /^[a-z_][a-z0-9_]{0,31}$/
const PREFIX = /^([a-z_][a-z0-9_]{0,15})?$/

/** The schema and table prefix a store works in, and the quoted names derived from them. */
export interface SqlNames {
  readonly schema: string
  readonly tablePrefix: string
  /** `"schema"."<prefix>table"`, quoted, for SQL text. */
  table: (name: string) => string
  /** The LISTEN/NOTIFY channel of this schema and prefix (an identifier, unquoted). */
  readonly channel: string
}

/** Checks a schema name: lower-case letters, digits and `_`, at most 32 characters. */
export function checkSchema (schema: unknown, label: string): string {
  if (typeof schema !== 'string' || !SCHEMA.test(schema)) {
    throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(label, 'expected a schema name of lower-case letters, digits and "_" (at most 32, not starting with a digit)')
  }
  return schema
}

/** Checks a table prefix: empty, or lower-case letters, digits and `_`, at most 16 characters. */
export function checkTablePrefix (prefix: unknown, label: string): string {
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(label, 'expected "" or lower-case letters, digits and "_" (at most 16, not starting with a digit)')
  }
  return prefix
}

/** The names for `schema` and `tablePrefix` (both checked). */
export function sqlNames (schema: string, tablePrefix: string): SqlNames {
  return Object.freeze({
    schema,
    tablePrefix,
    table: (name: string) => `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(tablePrefix + name)}`,
    channel: `${schema}_${tablePrefix}changes`
  })
}
