import { UserStoreBase, type UserStoreOptions, userKind, type StoredUser } from '@fastify-gatehouse/auth'
import { JournalFile } from './journal-file.js'
import { checkInterval, checkKnownOptions, resolveStoreLimits, type StoreLimitOptions } from './store-limits.js'

/** Options of {@link FileUserStore.open}. */
export interface FileUserStoreOptions extends UserStoreOptions, StoreLimitOptions {
  /**
   * Lookups answer from memory and check the file (one `stat`) at most this
   * often (ms), reading only the lines appended since when it grew: a
   * change made by another process (the CLI, another server) is seen within
   * this bound. Changes made through this store are seen at once. Default: 250.
   */
  watchInterval?: number
}

type Users = Map<string, StoredUser>

/**
 * Users in one file (mode 0600), a journal shared by the server and the
 * `gatehouse users` CLI. Lookups (`verify`, `get`, `standing`) answer from
 * the users kept in memory by identity, checked against the file at most
 * every `watchInterval` ms (no timer runs: the check is made by a lookup
 * that finds the last one older than that); a change is one line appended
 * under a lock, and seen by the next lookup of this store.
 * D-AUTH-12: no timer and no fs.watch: nothing to close or leak, no platform differences.
 * D-AUTH-23 (the journal), D-AUTH-24 (reloads), D-AUTH-25 (limits).
 */
export class FileUserStore extends UserStoreBase {
  readonly #file: JournalFile<StoredUser, Users>
  readonly #interval: number

  private constructor (file: JournalFile<StoredUser, Users>, interval: number, options: FileUserStoreOptions) {
    super(options)
    this.#file = file
    this.#interval = interval
  }

  /** Opens (or starts) the store at `path`; a corrupt file is an error naming it (and the line). */
  static async open (path: string, options: FileUserStoreOptions = {}): Promise<FileUserStore> {
    checkKnownOptions('FileUserStore', options, ['watchInterval', 'scrypt', 'maxRecords', 'maxFileBytes'])
    const interval = checkInterval('FileUserStore', 'watchInterval', options.watchInterval, 250)
    const file = new JournalFile(path, userKind, resolveStoreLimits('FileUserStore', options))
    await file.refresh()
    return new FileUserStore(file, interval, options)
  }

  get path (): string {
    return this.#file.path
  }

  /**
   * The users to answer from: checked against the file when the last check
   * is older than `watchInterval`. A lookup waits for a reload under way
   * (D-AUTH-24: so a user disabled elsewhere is refused within the bound).
   */
  async #current (): Promise<Users> {
    if (Date.now() - this.#file.checkedAt >= this.#interval) await this.#file.refresh()
    return this.#file.table
  }

  protected async find (identity: string): Promise<StoredUser | undefined> {
    return (await this.#current()).get(identity)
  }

  protected insert (user: StoredUser): Promise<boolean> {
    return this.#file.change((users) => users.has(user.identity) ? { result: false } : { entry: { put: user }, result: true })
  }

  protected edit (identity: string, change: (user: StoredUser) => void): Promise<boolean> {
    return this.#file.change((users) => {
      const user = users.get(identity)
      if (user === undefined) return { result: false }
      // A new object: what find() handed out (and its cached standing) stays as it was.
      const changed = { ...user, tags: [...user.tags] }
      change(changed)
      return { entry: { put: changed }, result: true }
    })
  }

  protected remove (identity: string): Promise<boolean> {
    return this.#file.change((users) => users.has(identity) ? { entry: { delete: identity }, result: true } : { result: false })
  }

  protected async all (): Promise<StoredUser[]> {
    return [...(await this.#current()).values()]
  }
}
