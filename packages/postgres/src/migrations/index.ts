import type { Migration } from 'kysely'
import type { SqlNames } from '../names.js'
import { initial } from './0001-initial.js'

/**
 * Every migration of this version, by name; names sort in the order they
 * run. A released migration never changes: a change to the schema is a new
 * migration with its own `down`.
 */
export function gatehouseMigrations (names: SqlNames): Record<string, Migration> {
  return {
    '0001-initial': initial(names)
  }
}
