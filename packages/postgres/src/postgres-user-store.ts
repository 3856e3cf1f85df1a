import {
  checkPassword, checkTags, DEFAULT_SCRYPT, GATEHOUSE_AUTH_STORE_INPUT, hashPassword, newUser, publicUser, standingOf, verifyAgainstDummy, verifyStored,
  type NewUser, type ScryptParams, type StoredUser, type UserRecord, type UserStanding, type UserStore, type VerifiedUser
} from '@fastify-gatehouse/auth'
import type { PostgresCacheOptions } from './cache-options.js'
import { GATEHOUSE_POSTGRES_INVALID_OPTIONS } from './errors.js'
import { checkImportedUsers, insertAll, userTable, type ImportCounts } from './import-records.js'
import { ListeningStore } from './listening-store.js'
import type { PostgresConnection, PostgresStoreOptions } from './options.js'
import type { ConnectOptions } from './postgres-store.js'
import { userStatements, type UserStatements } from './sql/user-statements.js'
import { run, type Statement } from './statement.js'
import { storableIdentity, wellFormed } from './stored-names.js'

/** Options of {@link PostgresUserStore.connect} besides the connection; every key is optional. */
export interface PostgresUserStoreOptions extends PostgresStoreOptions, ConnectOptions, PostgresCacheOptions {
  /** scrypt parameters for new password hashes. Default: N=2^15, r=8, p=1 (`DEFAULT_SCRYPT`). */
  scrypt?: ScryptParams
}

interface UserRow {
  identity: string
  tags: string[]
  enabled: boolean
  password_hash: string
  created_at: Date
  updated_at: Date
}

function stored (row: UserRow): StoredUser {
  return {
    identity: row.identity,
    tags: row.tags,
    enabled: row.enabled,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    passwordHash: row.password_hash
  }
}

/**
 * Users in PostgreSQL (table `<schema>.<prefix>users`), shared by every
 * instance and the CLI. `verify` always reads the row (a login sees the
 * latest password); `standing`, asked on every request of a password
 * session, answers from a bounded cache that change notifications keep
 * right (a change anywhere is seen within a second). Writes are single
 * statements.
 * D-POSTGRES-13 … D-POSTGRES-17.
 */
export class PostgresUserStore extends ListeningStore<UserStanding> implements UserStore {
  readonly #sql: UserStatements
  readonly #params: ScryptParams
  readonly #loadStanding = async (identity: string): Promise<UserStanding | null> => {
    const user = await this.#find(identity)
    return user === undefined || !user.enabled ? null : standingOf(user)
  }

  private constructor (options: PostgresConnection & PostgresUserStoreOptions) {
    super(options, 'PostgresUserStore', 'user', ['scrypt'])
    this.#sql = userStatements(this.names)
    this.#params = options.scrypt ?? DEFAULT_SCRYPT
  }

  /**
   * Connects, checks the schema (migrating it with `migrate: true`), checks
   * the scrypt parameters (hashing the dummy password unknown identities
   * are checked against) and starts the change listener. Rejects with a
   * boot error: `GATEHOUSE_POSTGRES_INVALID_OPTIONS`, `…_CONNECT`,
   * `…_SCHEMA_BEHIND` or `…_SCHEMA_AHEAD`.
   */
  static async connect (options: PostgresConnection & PostgresUserStoreOptions): Promise<PostgresUserStore> {
    const store = new PostgresUserStore(options)
    try {
      await verifyAgainstDummy('', store.#params)
    } catch (err) {
      await store.close()
      throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS('PostgresUserStore scrypt', (err as Error).message)
    }
    await store.open(options)
    return store
  }

  async #find (identity: string): Promise<StoredUser | undefined> {
    if (!storableIdentity(identity)) return undefined
    const { rows } = await run<UserRow>(this.pool, this.#sql.byIdentity, [identity])
    return rows[0] === undefined ? undefined : stored(rows[0])
  }

  /** Reads the row every time; an unknown identity costs the same scrypt work as a known one. */
  async verify (identity: string, password: string): Promise<VerifiedUser | null> {
    return await verifyStored(await this.#find(identity), password, this.#params)
  }

  /** From the cache (unknown and disabled identities too); see the README for how fresh it is. */
  async standing (identity: string): Promise<UserStanding | null> {
    if (!storableIdentity(identity)) return null
    return await this.cache.get(identity, this.#loadStanding)
  }

  async get (identity: string): Promise<UserRecord | null> {
    const user = await this.#find(identity)
    return user === undefined ? null : publicUser(user)
  }

  async add (identity: string, input: NewUser): Promise<UserRecord> {
    if (typeof identity === 'string' && !wellFormed(identity)) throw new GATEHOUSE_AUTH_STORE_INPUT('identity must be well-formed Unicode (no lone surrogate)')
    const user = await newUser(identity, input, this.#params)
    const { rowCount } = await this.changing(identity, () => run(this.pool, this.#sql.insert,
      [user.identity, user.tags, user.enabled, user.passwordHash, user.createdAt, user.updatedAt]))
    if (rowCount === 0) throw new GATEHOUSE_AUTH_STORE_INPUT(`user ${identity} already exists`)
    return publicUser(user)
  }

  async #update (statement: Statement, identity: string, value: unknown): Promise<boolean> {
    if (!storableIdentity(identity)) return false
    const { rowCount } = await this.changing(identity, () => run(this.pool, statement, [identity, value, new Date().toISOString()]))
    return rowCount !== 0
  }

  async setPassword (identity: string, password: string): Promise<boolean> {
    return await this.#update(this.#sql.setPassword, identity, await hashPassword(checkPassword(password), this.#params))
  }

  async setTags (identity: string, tags: string | readonly string[]): Promise<boolean> {
    return await this.#update(this.#sql.setTags, identity, checkTags(tags))
  }

  async setEnabled (identity: string, enabled: boolean): Promise<boolean> {
    return await this.#update(this.#sql.setEnabled, identity, enabled === true)
  }

  async delete (identity: string): Promise<boolean> {
    if (!storableIdentity(identity)) return false
    const { rowCount } = await this.changing(identity, () => run(this.pool, this.#sql.delete, [identity]))
    return rowCount !== 0
  }

  async list (): Promise<UserRecord[]> {
    const { rows } = await run<Omit<UserRow, 'password_hash'>>(this.pool, this.#sql.list, [])
    return rows.map((row) => Object.freeze({
      identity: row.identity, tags: Object.freeze(row.tags), enabled: row.enabled, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString()
    }))
  }

  /**
   * Adds users as stored elsewhere, password hashes included: every record
   * is checked first (`GATEHOUSE_AUTH_STORE_INPUT` naming `users[i]`), then
   * all are written in one transaction (a value PostgreSQL refuses is named
   * the same way, and nothing is written); identities already here are left
   * as they are, so running it again is harmless. `importStore` does users
   * and keys together.
   */
  async importUsers (records: readonly StoredUser[]): Promise<ImportCounts> {
    const users = checkImportedUsers(records)
    try {
      return await this.transaction(async (client) => await insertAll(client, userTable(this.#sql.import, users)))
    } finally {
      // Identities cached as unknown are known now: the notifications
      // say so to every instance, this one only after this returns.
      for (const u of users) this.cache.invalidate(u.identity)
    }
  }
}
