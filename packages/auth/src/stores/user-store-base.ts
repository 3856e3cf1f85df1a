import { GATEHOUSE_AUTH_STORE_INPUT } from '../errors.js'
import { DEFAULT_SCRYPT, hashPassword, type ScryptParams } from '../password.js'
import type { NewUser, UserRecord, UserStanding, UserStore, VerifiedUser } from '../user-store.js'
import { checkPassword, checkTags, newUser, publicUser, standingOf, verifyStored, type StoredUser } from './user-table.js'

/** Options of the user stores. */
export interface UserStoreOptions {
  /** scrypt parameters for new hashes. Default: {@link DEFAULT_SCRYPT}. */
  scrypt?: ScryptParams
}

/**
 * The logic every user store shares (validation, hashing, timing-safe
 * verification, never returning hashes); a store supplies the storage.
 */
export abstract class UserStoreBase implements UserStore {
  readonly #params: ScryptParams

  constructor (options: UserStoreOptions = {}) {
    this.#params = options.scrypt ?? DEFAULT_SCRYPT
  }

  /** The scrypt parameters of new hashes. */
  protected get scryptParams (): ScryptParams {
    return this.#params
  }

  /** The user as stored; callers never change what it returns. */
  protected abstract find (identity: string): Promise<StoredUser | undefined>
  /** Adds a user; false when the identity exists. */
  protected abstract insert (user: StoredUser): Promise<boolean>
  /** Applies `change` to a copy of the user and stores the copy; false when unknown. */
  protected abstract edit (identity: string, change: (user: StoredUser) => void): Promise<boolean>
  protected abstract remove (identity: string): Promise<boolean>
  protected abstract all (): Promise<StoredUser[]>

  async verify (identity: string, password: string): Promise<VerifiedUser | null> {
    return verifyStored(await this.find(identity), password, this.#params)
  }

  async standing (identity: string): Promise<UserStanding | null> {
    const stored = await this.find(identity)
    return stored === undefined || !stored.enabled ? null : standingOf(stored)
  }

  async get (identity: string): Promise<UserRecord | null> {
    const stored = await this.find(identity)
    return stored === undefined ? null : publicUser(stored)
  }

  async add (identity: string, user: NewUser): Promise<UserRecord> {
    const stored = await newUser(identity, user, this.#params)
    if (!await this.insert(stored)) throw new GATEHOUSE_AUTH_STORE_INPUT(`user ${identity} already exists`)
    return publicUser(stored)
  }

  #update (identity: string, change: (user: StoredUser) => void): Promise<boolean> {
    return this.edit(identity, (user) => {
      change(user)
      user.updatedAt = new Date().toISOString()
    })
  }

  async setPassword (identity: string, password: string): Promise<boolean> {
    const hash = await hashPassword(checkPassword(password), this.#params)
    return this.#update(identity, (user) => { user.passwordHash = hash })
  }

  async setTags (identity: string, tags: string | readonly string[]): Promise<boolean> {
    const checked = checkTags(tags)
    return this.#update(identity, (user) => { user.tags = checked })
  }

  async setEnabled (identity: string, enabled: boolean): Promise<boolean> {
    return this.#update(identity, (user) => { user.enabled = enabled === true })
  }

  delete (identity: string): Promise<boolean> {
    return this.remove(identity)
  }

  async list (): Promise<UserRecord[]> {
    return (await this.all()).map(publicUser)
  }
}
