/** A user as listed: never the password hash. */
export interface UserRecord {
  readonly identity: string
  readonly tags: readonly string[]
  readonly enabled: boolean
  readonly createdAt: string
  readonly updatedAt: string
}

/** What adding a user takes. */
export interface NewUser {
  password: string
  tags?: string | readonly string[]
}

/**
 * Where password users live. Passwords are stored as scrypt hashes;
 * `verify` of an unknown identity spends the same work as a known one, and
 * disabled users never verify.
 */
export interface UserStore {
  /** The user when `password` is right and the user is enabled; otherwise null. */
  verify: (identity: string, password: string) => Promise<UserRecord | null>
  get: (identity: string) => Promise<UserRecord | null>
  /** Adds a user; an existing identity is an error (`GATEHOUSE_AUTH_STORE_INPUT`). */
  add: (identity: string, user: NewUser) => Promise<UserRecord>
  /** False when unknown. */
  setPassword: (identity: string, password: string) => Promise<boolean>
  setTags: (identity: string, tags: string | readonly string[]) => Promise<boolean>
  setEnabled: (identity: string, enabled: boolean) => Promise<boolean>
  delete: (identity: string) => Promise<boolean>
  list: () => Promise<UserRecord[]>
}
