import { GATEHOUSE_AUTH_STORE_INPUT } from '../errors.js'
import { DEFAULT_SCRYPT, hashPassword, type ScryptParams } from '../password.js'
import type { NewUser, UserRecord, UserStore } from '../user-store.js'
import { checkPassword, checkTags, newUser, publicUser, verifyStored, type StoredUser } from './user-table.js'

/** Options of the user stores. */
export interface UserStoreOptions {
  /** scrypt parameters for new hashes. Default: {@link DEFAULT_SCRYPT}. */
  scrypt?: ScryptParams
}

/** Users in memory (tests, users seeded from config at boot). */
export class MemoryUserStore implements UserStore {
  readonly #users = new Map<string, StoredUser>()
  readonly #params: ScryptParams

  constructor (options: UserStoreOptions = {}) {
    this.#params = options.scrypt ?? DEFAULT_SCRYPT
  }

  async verify (identity: string, password: string): Promise<UserRecord | null> {
    return verifyStored(this.#users.get(identity), password, this.#params)
  }

  async get (identity: string): Promise<UserRecord | null> {
    const stored = this.#users.get(identity)
    return stored === undefined ? null : publicUser(stored)
  }

  async add (identity: string, user: NewUser): Promise<UserRecord> {
    const stored = await newUser(identity, user, this.#params)
    if (this.#users.has(identity)) throw new GATEHOUSE_AUTH_STORE_INPUT(`user ${identity} already exists`)
    this.#users.set(identity, stored)
    return publicUser(stored)
  }

  async #edit (identity: string, edit: (user: StoredUser) => void): Promise<boolean> {
    const stored = this.#users.get(identity)
    if (stored === undefined) return false
    edit(stored)
    stored.updatedAt = new Date().toISOString()
    return true
  }

  async setPassword (identity: string, password: string): Promise<boolean> {
    const hash = await hashPassword(checkPassword(password), this.#params)
    return this.#edit(identity, (user) => { user.passwordHash = hash })
  }

  async setTags (identity: string, tags: string | readonly string[]): Promise<boolean> {
    const checked = checkTags(tags)
    return this.#edit(identity, (user) => { user.tags = checked })
  }

  async setEnabled (identity: string, enabled: boolean): Promise<boolean> {
    return this.#edit(identity, (user) => { user.enabled = enabled === true })
  }

  async delete (identity: string): Promise<boolean> {
    return this.#users.delete(identity)
  }

  async list (): Promise<UserRecord[]> {
    return [...this.#users.values()].map(publicUser)
  }
}
