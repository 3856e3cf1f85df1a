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

/** The lifetimes of the session component, in seconds (`app.sessionSettings`). */
export interface Lifetimes { readonly idleTtl: number, readonly absoluteTtl: number }

const iso = (ms: number): string => new Date(ms).toISOString()

/** When a stored session ends: its idle deadline, never past its absolute one. */
function endsAt (entry: SessionEntry, lifetimes: Lifetimes): number {
  return Math.min(entry.record.expiresAt, entry.record.createdAt + lifetimes.absoluteTtl * 1000)
}

/**
 * The live sessions of `identity`, newest sign-in first, at most
 * {@link LISTED}. `current` (the caller's own handle) is shown as last seen
 * now: this request is a use.
 */
export async function listSessions (store: SessionStore, identity: string, lifetimes: Lifetimes, now: number, current: string | null = null): Promise<Array<SessionItem & { readonly current: boolean }>> {
  const entries = (await store.listFor(identity, LOOKUP)).filter((entry) => entry.record.identity === identity && endsAt(entry, lifetimes) > now)
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

/** The stored session of `identity` named by `handle`, or undefined (also for a value that is not a handle: D-SERVER-27). */
export async function findSession (store: SessionStore, identity: string, handle: string): Promise<SessionEntry | undefined> {
  if (!isSessionHandle(handle)) return undefined
  return (await store.listFor(identity, LOOKUP)).find((entry) => entry.record.identity === identity && sessionHandle(entry.key) === handle)
}

/** Most passes over an identity's sessions when ending them: sessions signed in meanwhile are caught by the next pass. */
const PASSES = 10

/**
 * Ends every session of `identity` but the one whose handle is `keep`
 * (read {@link LOOKUP} at a time, so any number of them); resolves with how
 * many this call ended. Unlike `destroyAllFor` then a new sign-in, the
 * kept session keeps its id, its data and its absolute lifetime.
 * D-SESSION-24.
 */
export async function endOtherSessions (store: SessionStore, identity: string, keep: string | null): Promise<number> {
  const ended = new Set<string>()
  for (let pass = 0; pass < PASSES; pass++) {
    const others = (await store.listFor(identity, LOOKUP)).filter((entry) => sessionHandle(entry.key) !== keep)
    if (others.length === 0) break
    await Promise.all(others.map(async (entry) => { await store.destroy(entry.key) }))
    for (const entry of others) ended.add(entry.key)
  }
  return ended.size
}
