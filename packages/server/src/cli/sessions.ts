import { errorForLog } from '@fastify-gatehouse/core'
import { GATEHOUSE_SERVER_NO_SESSION_STORE } from '../errors.js'
import { listSessions } from '../server-app/account/session-list.js'
import type { CliIo } from './io.js'
import { NO_SHARED_SESSIONS, openSharedSessions, sharedSessions, type OpenedSessionStore } from './session-store.js'
import type { StoreFlags } from './store-target.js'
import { formatTable } from './table.js'

async function withSessions<T> (io: CliIo, flags: StoreFlags, command: string, use: (opened: OpenedSessionStore, lifetimes: { idleTtl: number, absoluteTtl: number }) => Promise<T>): Promise<T> {
  const shared = await sharedSessions(io, flags)
  if (shared === undefined) throw new GATEHOUSE_SERVER_NO_SESSION_STORE(`${command} ${NO_SHARED_SESSIONS}`)
  const opened = await openSharedSessions(shared)
  try {
    return await use(opened, shared)
  } finally {
    await opened.close()
  }
}

/**
 * `gatehouse users sessions <identity> [--json]`: the identity's live
 * sessions in the shared store, newest first, by handle (never an id or a
 * key), as the admin API lists them.
 */
export async function listUserSessions (io: CliIo, flags: StoreFlags, identity: string, json: boolean): Promise<number> {
  return await withSessions(io, flags, 'users sessions', async ({ store }, lifetimes) => {
    const items = (await listSessions(store, { identity }, lifetimes, Date.now())).map(({ current: _current, ...item }) => item)
    io.stdout.write(json
      ? JSON.stringify(items) + '\n'
      : formatTable(['HANDLE', 'SIGNED IN', 'LAST SEEN', 'EXPIRES', 'ADDRESS', 'AGENT', 'VIA'],
        items.map((s) => [s.handle, s.signed_in_at, s.last_seen_at, s.expires_at, s.address ?? '-', s.agent ?? '-', s.via ?? '-'])))
    return 0
  })
}

/** `gatehouse users signout <identity>`: ends every session of the identity, on every server sharing the store. */
export async function signOutUser (io: CliIo, flags: StoreFlags, identity: string): Promise<number> {
  return await withSessions(io, flags, 'users signout', async ({ store }) => {
    const ended = await store.destroyAllFor(identity)
    io.stderr.write(`Signed ${identity} out: ${ended} session${ended === 1 ? '' : 's'} ended.\n`)
    return 0
  })
}

/**
 * After `users disable|delete|passwd`: ends the user's sessions in the
 * shared session store when the flags name one (every server sharing it
 * drops them at once). Without one, or when it cannot be reached, the
 * servers still end them on the user's next request (each re-checks the
 * user), so a failure here is a warning, not a failed command.
 * D-CLI-16.
 */
export async function endSessionsAfterChange (io: CliIo, flags: StoreFlags, identity: string): Promise<void> {
  const shared = await sharedSessions(io, flags)
  if (shared === undefined) return
  let opened: OpenedSessionStore | undefined
  try {
    opened = await openSharedSessions(shared)
    const ended = await opened.store.destroyAllFor(identity)
    io.stderr.write(`Ended ${ended} session${ended === 1 ? '' : 's'} of ${identity}.\n`)
  } catch (err) {
    io.stderr.write(`gatehouse: could not end the sessions of ${identity} now (${errorForLog(err).message}); the servers end them on their next request\n`)
  } finally {
    await opened?.close().catch(() => {})
  }
}
