import { channel } from 'node:diagnostics_channel'

/**
 * `gatehouse:resolve`: one message `{ section }` each time the resolver of
 * a section runs (said as it starts, so a section refused counts too): a
 * recipe resolved into chain steps (`recipe`), and the sections of a
 * server's options (`limits`, `login`, `account`, `passwordPolicy`,
 * `adminPassword`, `oidc`, `users`, `tokens`, `database`). Each is
 * resolved once; a subscriber (a test, a profiler) can count it without a
 * hook in the code. Publishing costs nothing while no one subscribes.
 * D-SERVER-60, D-CONFIG-17.
 */
export const resolveChannel = channel('gatehouse:resolve')

/** Says on {@link resolveChannel} that a section's resolver runs, and runs it. */
export function resolveSection<T> (section: string, resolve: () => T): T {
  if (resolveChannel.hasSubscribers) resolveChannel.publish({ section })
  return resolve()
}
