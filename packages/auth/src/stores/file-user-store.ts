import { GATEHOUSE_AUTH_STORE_INPUT } from '../errors.js'
import { DEFAULT_SCRYPT, hashPassword, type ScryptParams } from '../password.js'
import type { NewUser, UserRecord, UserStore } from '../user-store.js'
import { JsonFile } from './json-file.js'
import type { UserStoreOptions } from './memory-user-store.js'
import { checkPassword, checkTags, emptyUserDocument, newUser, publicUser, userDocumentSchema, verifyStored, type StoredUser, type UserDocument } from './user-table.js'

/**
 * Users in one JSON file (mode 0600), shared by the server and the
 * `gatehouse users` CLI. Every read sees the file as it is now (logins are
 * rare next to the cost of a password hash); every change is made under a
 * lock and written atomically.
 */
export class FileUserStore implements UserStore {
  readonly #file: JsonFile<UserDocument>
  readonly #params: ScryptParams

  private constructor (file: JsonFile<UserDocument>, params: ScryptParams) {
    this.#file = file
    this.#params = params
  }

  /** Opens (or starts) the store at `path`; a corrupt file is an error naming it. */
  static async open (path: string, options: UserStoreOptions = {}): Promise<FileUserStore> {
    const file = new JsonFile(path, userDocumentSchema, emptyUserDocument)
    await file.read()
    return new FileUserStore(file, options.scrypt ?? DEFAULT_SCRYPT)
  }

  get path (): string {
    return this.#file.path
  }

  async #find (identity: string): Promise<StoredUser | undefined> {
    return (await this.#file.read()).users.find((u) => u.identity === identity)
  }

  async verify (identity: string, password: string): Promise<UserRecord | null> {
    return verifyStored(await this.#find(identity), password, this.#params)
  }

  async get (identity: string): Promise<UserRecord | null> {
    const stored = await this.#find(identity)
    return stored === undefined ? null : publicUser(stored)
  }

  async add (identity: string, user: NewUser): Promise<UserRecord> {
    const stored = await newUser(identity, user, this.#params)
    await this.#file.update((doc) => {
      if (doc.users.some((u) => u.identity === identity)) throw new GATEHOUSE_AUTH_STORE_INPUT(`user ${identity} already exists`)
      doc.users.push(stored)
    })
    return publicUser(stored)
  }

  #edit (identity: string, edit: (user: StoredUser) => void): Promise<boolean> {
    return this.#file.update((doc) => {
      const stored = doc.users.find((u) => u.identity === identity)
      if (stored === undefined) return false
      edit(stored)
      stored.updatedAt = new Date().toISOString()
      return true
    })
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

  delete (identity: string): Promise<boolean> {
    return this.#file.update((doc) => {
      const at = doc.users.findIndex((u) => u.identity === identity)
      if (at !== -1) doc.users.splice(at, 1)
      return at !== -1
    })
  }

  async list (): Promise<UserRecord[]> {
    return (await this.#file.read()).users.map(publicUser)
  }
}
