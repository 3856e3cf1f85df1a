import { UserStoreBase, type UserStoreOptions } from './user-store-base.js'
import type { StoredUser } from './user-table.js'

export type { UserStoreOptions }

/** Users in memory (tests, users seeded from config at boot). */
export class MemoryUserStore extends UserStoreBase {
  readonly #users = new Map<string, StoredUser>()

  constructor (options: UserStoreOptions = {}) {
    super(options)
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
