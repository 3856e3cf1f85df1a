// Locks as the lock tests leave them and watch them (src/stores/file-lock.ts).
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { waitUntil } from '../../../../test-helpers/wait.js'
import { hookFs } from './fs-hooks.js'

/** A lock directory as a holder leaves it, last touched `age` ms (default a minute) before `now`. */
export function leftLock (lock: string, owner: object | undefined, now: number, age = 60_000): void {
  mkdirSync(lock)
  if (owner !== undefined) writeFileSync(join(lock, 'owner'), JSON.stringify(owner))
  const at = new Date(now - age)
  utimesSync(lock, at, at)
}

export const ownerIn = (lock: string): { token: string } => JSON.parse(readFileSync(join(lock, 'owner'), 'utf8')) as { token: string }
export const leftovers = (dir: string): string[] => readdirSync(dir).filter((name) => name.includes('.lock'))
/** The owner of a lock left by a process of another machine: its liveness is never known here. */
export const ELSEWHERE = { token: 'crashed-elsewhere', pid: 4242, host: 'elsewhere', machine: 'another-boot/pid:[1]', start: '1' }

export interface Looks { looks: () => number }

/**
 * Counts the looks (stats) each party of `who` takes at `path` (a lock, a
 * store file); one hook for all, as stacked hooks of one function would not
 * be undone in order.
 */
export function countLooks (t: Parameters<typeof hookFs>[0], path: string, who: string[]): Record<string, Looks> {
  const counts = new Map(who.map((name) => [name, 0]))
  hookFs(t, ['stat'], (_fn, args, party) => {
    if (party !== undefined && counts.has(party) && args[0] === path) counts.set(party, counts.get(party)! + 1)
  })
  return Object.fromEntries(who.map((name) => [name, { looks: () => counts.get(name)! }]))
}

/**
 * Waits until `counter`'s party has looked `n` more times and judged what it
 * saw: a look is counted as its stat starts, so one more must have started.
 */
export async function moreLooks (counter: Looks, n: number, what: string): Promise<void> {
  const from = counter.looks()
  await waitUntil(() => counter.looks() > from + n, { what })
}
