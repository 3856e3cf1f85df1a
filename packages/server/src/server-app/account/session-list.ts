import { isSessionHandle, lastSeenAt, sessionHandle, type SessionEntry, type SessionStore } from '@fastify-gatehouse/session'

/** Sessions shown at most, newest first. */
export const LISTED = 100
/**
 * Sessions of one identity read at most to list, find or end them: the
 * newest {@link LISTED} are shown out of these (a store answers any
 * `limit` of them, not the newest).
 * D-SESSION-25.
 */
export const LOOKUP = 1000

/** A session as its owner and administrators see it: never its id or store key. */
export interface SessionItem {
  readonly handle: string
  readonly signed_in_at: string
  readonly last_seen_at: string
  readonly expires_at: string
  readonly address: string | null
  readonly agent: string | null
  readonly via: string | null
}

/**
 * Whose sessions: an identity, and how it signed in. Identities of different
 * sign-in methods are different people who may share a name (an OIDC
 * provider's `sub` "alice" and this server's password user "alice"; two
 * providers' `sub`s), so a caller's own sessions are those of its identity
 * signed in the same way (`via`: `password`, `oidc:<name>`, or null for an
 * app's own `login`). An administrator's view is the identity's, every way
 * (`via` undefined). D-SERVER-41.
 */
export interface SessionOwner { readonly identity: string, readonly via?: string | null }

/** Whether `entry` is a session of `owner`. */
function ownedBy (entry: SessionEntry, owner: SessionOwner): boolean {
  return entry.record.identity === owner.identity && (owner.via === undefined || entry.record.via === owner.via)
}

/** The lifetimes of the session component, in seconds (`app.sessionSettings`). */
export interface Lifetimes { readonly idleTtl: number, readonly absoluteTtl: number }

const iso = (ms: number): string => new Date(ms).toISOString()

/** When a stored session ends: its idle deadline, never past its absolute one. */
function endsAt (entry: SessionEntry, lifetimes: Lifetimes): number {
  return Math.min(entry.record.expiresAt, entry.record.createdAt + lifetimes.absoluteTtl * 1000)
}

/**
 * The live sessions of `owner`, newest sign-in first, at most
 * {@link LISTED}. `current` (the caller's own handle) is shown as last seen
 * now: this request is a use.
 */
export async function listSessions (store: SessionStore, owner: SessionOwner, lifetimes: Lifetimes, now: number, current: string | null = null): Promise<Array<SessionItem & { readonly current: boolean }>> {
  const entries = (await store.listFor(owner.identity, LOOKUP)).filter((entry) => ownedBy(entry, owner) && endsAt(entry, lifetimes) > now)
  entries.sort((a, b) => b.record.createdAt - a.record.createdAt)
  return entries.slice(0, LISTED).map((entry) => {
    const handle = sessionHandle(entry.key)
    const { record } = entry
    return {
      handle,
      current: handle === current,
      signed_in_at: iso(record.createdAt),
      last_seen_at: iso(handle === current ? now : lastSeenAt(record, lifetimes.idleTtl, now)),
      expires_at: iso(endsAt(entry, lifetimes)),
      address: record.client?.address ?? null,
      agent: record.client?.agent ?? null,
      via: record.via
    }
  })
}

/** The stored session of `owner` named by `handle`, or undefined (also for a value that is not a handle: D-SERVER-27). */
export async function findSession (store: SessionStore, owner: SessionOwner, handle: string): Promise<SessionEntry | undefined> {
  if (!isSessionHandle(handle)) return undefined
  return (await store.listFor(owner.identity, LOOKUP)).find((entry) => ownedBy(entry, owner) && sessionHandle(entry.key) === handle)
}

/** Most passes over an identity's sessions when ending them: sessions signed in meanwhile are caught by the next pass. */
const PASSES = 10

/**
 * Ends every session of `owner` but the one whose handle is `keep`
 * (read {@link LOOKUP} at a time, so any number of them); resolves with how
 * many this call ended. Unlike `destroyAllFor` then a new sign-in, the
 * kept session keeps its id, its data and its absolute lifetime.
 * D-SESSION-24.
 */
export async function endOtherSessions (store: SessionStore, owner: SessionOwner, keep: string | null): Promise<number> {
  const ended = new Set<string>()
  for (let pass = 0; pass < PASSES; pass++) {
    const others = (await store.listFor(owner.identity, LOOKUP)).filter((entry) => ownedBy(entry, owner) && sessionHandle(entry.key) !== keep)
    if (others.length === 0) break
    await Promise.all(others.map(async (entry) => { await store.destroy(entry.key) }))
    for (const entry of others) ended.add(entry.key)
  }
  return ended.size
}
