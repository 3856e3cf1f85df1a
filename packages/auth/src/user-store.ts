/** A user as listed: never the password hash. */
export interface UserRecord {
  readonly identity: string
  readonly tags: readonly string[]
  readonly enabled: boolean
  readonly createdAt: string
  readonly updatedAt: string
}

/**
 * A user whose password was just verified: the listed fields plus the
 * credential stamp, an opaque value that changes whenever the password is
 * set (a session keeps it and ends when it no longer matches).
 * D-SESSION-11.
 */
export interface VerifiedUser extends UserRecord {
  readonly stamp: string
}

/** What a signed-in session is re-checked against: the user's current tags and credential stamp. */
export interface UserStanding {
  readonly tags: readonly string[]
  readonly stamp: string
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
  /** The user (with its credential stamp) when `password` is right and the user is enabled; otherwise null. */
  verify: (identity: string, password: string) => Promise<VerifiedUser | null>
  get: (identity: string) => Promise<UserRecord | null>
  /**
   * The current tags and credential stamp of an enabled user; null when the
   * user is unknown, deleted or disabled. Asked on every request of a
   * password session, so it must be cheap (no password hashing).
   */
  standing: (identity: string) => Promise<UserStanding | null>
  /** Adds a user; an existing identity is an error (`GATEHOUSE_AUTH_STORE_INPUT`). */
  add: (identity: string, user: NewUser) => Promise<UserRecord>
  /** False when unknown. Changes the credential stamp (even to the same password). */
  setPassword: (identity: string, password: string) => Promise<boolean>
  setTags: (identity: string, tags: string | readonly string[]) => Promise<boolean>
  setEnabled: (identity: string, enabled: boolean) => Promise<boolean>
  delete: (identity: string) => Promise<boolean>
  list: () => Promise<UserRecord[]>
}
