// Counts what the resolvers say on the `gatehouse:resolve` diagnostics
// channel (D-SERVER-60, D-CONFIG-17): the "resolved once" tests of core and
// the server read the same counts the same way.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'

/** Counts the sections resolved while the test runs, by name; stops counting at its teardown. */
export function countResolves (t: { teardown: (fn: () => void) => void }): Map<string, number> {
  const counts = new Map<string, number>()
  const listener = (message: unknown): void => {
    const { section } = message as { section: string }
    counts.set(section, (counts.get(section) ?? 0) + 1)
  }
  subscribe('gatehouse:resolve', listener)
  t.teardown(() => { unsubscribe('gatehouse:resolve', listener) })
  return counts
}
