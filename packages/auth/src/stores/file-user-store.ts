import { GATEHOUSE_AUTH_INVALID_CONFIG } from '../errors.js'
import { JsonFile } from './json-file.js'
import { UserStoreBase, type UserStoreOptions } from './user-store-base.js'
import { emptyUserDocument, userDocumentSchema, type StoredUser, type UserDocument } from './user-table.js'

/** Options of {@link FileUserStore.open}. */
export interface FileUserStoreOptions extends UserStoreOptions {
  /**
   * Lookups answer from memory and check the file (one `stat`) at most this
   * often (ms), re-reading it only when it changed: a change made by another
   * process (the CLI, another server) is seen within this bound. Changes
   * made through this store are seen at once. Default: 250.
   */
  watchInterval?: number
}

/** A version of the file's users, by identity. */
interface View {
  readonly users: ReadonlyMap<string, StoredUser>
  /** The generation it was read for (see FileUserStore#generation). */
  readonly generation: number
  /** When the file was last found to match it (ms). */
  checkedAt: number
}

/**
 * Users in one JSON file (mode 0600), shared by the server and the
 * `gatehouse users` CLI. Lookups (`verify`, `get`, `standing`) answer from a
 * view of the file kept in memory, checked against the file at most every
 * `watchInterval` ms (no timer runs: the check is made by a lookup that
 * finds the view older than that); every change is made under a lock,
 * written atomically, and seen by the next lookup of this store.
 * D-AUTH-12: no timer and no fs.watch: nothing to close or leak, no platform differences.
 */
export class FileUserStore extends UserStoreBase {
  readonly #file: JsonFile<UserDocument>
  readonly #interval: number
  #view: View | null = null
  // Bumped by each change made through this store: a view read before it is stale.
  #generation = 0
  // The refresh under way, shared by lookups of the same generation.
  #refreshing: { generation: number, view: Promise<View> } | null = null

  private constructor (file: JsonFile<UserDocument>, options: FileUserStoreOptions) {
    super(options)
    this.#file = file
    this.#interval = options.watchInterval ?? 250
  }

  /** Opens (or starts) the store at `path`; a corrupt file is an error naming it. */
  static async open (path: string, options: FileUserStoreOptions = {}): Promise<FileUserStore> {
    const interval = options.watchInterval ?? 250
    if (!(typeof interval === 'number' && interval >= 0 && interval <= 60_000)) throw new GATEHOUSE_AUTH_INVALID_CONFIG('FileUserStore watchInterval', 'must be 0–60000 ms')
    const store = new FileUserStore(new JsonFile(path, userDocumentSchema, emptyUserDocument), options)
    await store.#current()
    return store
  }

  get path (): string {
    return this.#file.path
  }

  /** The view to answer from: the one in memory while fresh, else checked against the file. */
  async #current (): Promise<View> {
    const view = this.#view
    if (view !== null && view.generation === this.#generation && Date.now() - view.checkedAt < this.#interval) return view
    if (this.#refreshing?.generation !== this.#generation) {
      const generation = this.#generation
      const refreshing = { generation, view: this.#refresh(generation) }
      this.#refreshing = refreshing
      refreshing.view.finally(() => { if (this.#refreshing === refreshing) this.#refreshing = null }).catch(() => {})
    }
    return await this.#refreshing!.view
  }

  async #refresh (generation: number): Promise<View> {
    const checkedAt = Date.now()
    const old = this.#view
    let view: View
    if (old !== null && old.generation === generation && !await this.#file.changed()) {
      view = old
      view.checkedAt = checkedAt
    } else {
      const doc = await this.#file.read()
      view = { users: new Map(doc.users.map((u) => [u.identity, u])), generation, checkedAt }
    }
    // A slower refresh of an older generation never replaces a newer view.
    if (this.#view === null || this.#view.generation <= generation) this.#view = view
    return view
  }

  /** Runs a change under the file's lock; the next lookup re-reads the file. */
  async #change<R> (change: (doc: UserDocument) => R): Promise<R> {
    try {
      return await this.#file.update(change)
    } finally {
      this.#generation++
    }
  }

  protected async find (identity: string): Promise<StoredUser | undefined> {
    return (await this.#current()).users.get(identity)
  }

  protected insert (user: StoredUser): Promise<boolean> {
    return this.#change((doc) => {
      if (doc.users.some((u) => u.identity === user.identity)) return false
      doc.users.push(user)
      return true
    })
  }

  protected edit (identity: string, change: (user: StoredUser) => void): Promise<boolean> {
    return this.#change((doc) => {
      const user = doc.users.find((u) => u.identity === identity)
      if (user !== undefined) change(user)
      return user !== undefined
    })
  }

  protected remove (identity: string): Promise<boolean> {
    return this.#change((doc) => {
      const at = doc.users.findIndex((u) => u.identity === identity)
      if (at !== -1) doc.users.splice(at, 1)
      return at !== -1
    })
  }

  protected async all (): Promise<StoredUser[]> {
    return [...(await this.#current()).users.values()]
  }
}
