// What a store keeps in memory, for every store that keeps its records in a
// table: the memory stores here and the file stores of
// @fastify-gatehouse/files, whose journal folds its lines into these tables
// (D-STORES-02).

/** What is kept in a store file: users or API keys; the header and a version 1 document name it. */
export type StoreName = 'users' | 'keys'

/** The in-memory records of a store: what a journal folds its lines into. A `Map` is one. */
export interface Table<R> {
  readonly size: number
  get: (id: string) => R | undefined
  has: (id: string) => boolean
  set: (id: string, record: R) => unknown
  delete: (id: string) => boolean
  values: () => IterableIterator<R>
}

/** What a journal needs to know about the records of one kind of store. */
export interface RecordKind<R, T extends Table<R>> {
  readonly name: StoreName
  /** One record, in messages: `user`, `key`. */
  readonly noun: string
  idOf: (record: R) => string
  /** Why `value` is not a valid record (`<JSON pointer>: <problem>`), or undefined. */
  invalid: (value: unknown) => string | undefined
  /** Why `value` is not a valid id, or undefined. */
  invalidId: (value: unknown) => string | undefined
  /** A new, empty table (with whatever index the store keeps beside it). */
  newTable: () => T
  /**
   * Keys only: `record` with its last use at `at` (ISO 8601), and how many
   * bytes longer that makes its line; undefined when it was used as late
   * already. Without it, `used` lines are refused.
   */
  withLastUse?: (record: R, at: string) => { readonly record: R, readonly grows: number } | undefined
}
