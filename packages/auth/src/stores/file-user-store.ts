import { JsonFile } from './json-file.js'
import { UserStoreBase, type UserStoreOptions } from './user-store-base.js'
import { emptyUserDocument, userDocumentSchema, type StoredUser, type UserDocument } from './user-table.js'

/**
 * Users in one JSON file (mode 0600), shared by the server and the
 * `gatehouse users` CLI. Every read sees the file as it is now (logins are
 * rare next to the cost of a password hash); every change is made under a
 * lock and written atomically.
 */
export class FileUserStore extends UserStoreBase {
  readonly #file: JsonFile<UserDocument>

  private constructor (file: JsonFile<UserDocument>, options: UserStoreOptions) {
    super(options)
    this.#file = file
  }

  /** Opens (or starts) the store at `path`; a corrupt file is an error naming it. */
  static async open (path: string, options: UserStoreOptions = {}): Promise<FileUserStore> {
    const file = new JsonFile(path, userDocumentSchema, emptyUserDocument)
    await file.read()
    return new FileUserStore(file, options)
  }

  get path (): string {
    return this.#file.path
  }

  protected async find (identity: string): Promise<StoredUser | undefined> {
    return (await this.#file.read()).users.find((u) => u.identity === identity)
  }

  protected insert (user: StoredUser): Promise<boolean> {
    return this.#file.update((doc) => {
      if (doc.users.some((u) => u.identity === user.identity)) return false
      doc.users.push(user)
      return true
    })
  }

  protected edit (identity: string, change: (user: StoredUser) => void): Promise<boolean> {
    return this.#file.update((doc) => {
      const user = doc.users.find((u) => u.identity === identity)
      if (user !== undefined) change(user)
      return user !== undefined
    })
  }

  protected remove (identity: string): Promise<boolean> {
    return this.#file.update((doc) => {
      const at = doc.users.findIndex((u) => u.identity === identity)
      if (at !== -1) doc.users.splice(at, 1)
      return at !== -1
    })
  }

  protected async all (): Promise<StoredUser[]> {
    return (await this.#file.read()).users
  }
}
