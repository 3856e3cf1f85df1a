import { UserStoreBase, type UserStoreOptions } from './user-store-base.js'
import { publicUser, type StoredUser } from './user-table.js'
import { configuredUser, type ConfiguredUser } from './configured-user.js'
import type { UserRecord } from '../user-store.js'

export type { UserStoreOptions }

/** Users in memory (tests, users seeded from config at boot). */
export class MemoryUserStore extends UserStoreBase {
  readonly #users = new Map<string, StoredUser>()

  constructor (options: UserStoreOptions = {}) {
    super(options)
  }

  /**
   * Adds (or replaces) a user from configuration that several instances
   * share (AppServer's `users`, `adminPassword`): enabled, with the tags
   * given, and a password hash that is the same on every instance for the
   * same entry (`passwordHash` as given; `password` hashed with a salt
   * derived from the identity), so a session made on one instance keeps
   * its credential stamp on the others. Rejects with
   * `GATEHOUSE_AUTH_STORE_INPUT` naming what is wrong.
   * D-AUTH-70, D-SESSION-27.
   */
  async seed (identity: string, user: ConfiguredUser): Promise<UserRecord> {
    const stored = await configuredUser(identity, user, this.scryptParams)
    const before = this.#users.get(identity)
    // Replacing keeps when the user was made; the rest is as configured.
    if (before !== undefined) stored.createdAt = before.createdAt
    this.#users.set(identity, stored)
    return publicUser(stored)
  }

  protected async find (identity: string): Promise<StoredUser | undefined> {
    return this.#users.get(identity)
  }

  protected async insert (user: StoredUser): Promise<boolean> {
    if (this.#users.has(user.identity)) return false
    this.#users.set(user.identity, user)
    return true
  }

  protected async edit (identity: string, change: (user: StoredUser) => void): Promise<boolean> {
    const user = this.#users.get(identity)
    if (user === undefined) return false
    // A new object: what find() handed out (and its cached standing) stays as it was.
    const changed = { ...user, tags: [...user.tags] }
    change(changed)
    this.#users.set(identity, changed)
    return true
  }

  protected async remove (identity: string): Promise<boolean> {
    return this.#users.delete(identity)
  }

  protected async all (): Promise<StoredUser[]> {
    return [...this.#users.values()]
  }
}
