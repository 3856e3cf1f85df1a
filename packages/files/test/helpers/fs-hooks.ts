// Runs a hook before chosen node:fs/promises functions, for tests that must
// stop a store at one exact step (a race between two lock takers, a write
// cut short). Named imports of node:fs/promises follow the patch
// (syncBuiltinESMExports), so the stores need no seam of their own. Calls
// are told apart by who makes them: run each party under `as(name, …)`.
import { AsyncLocalStorage } from 'node:async_hooks'
import fs from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'

const parties = new AsyncLocalStorage<string>()

/** Runs `fn` as `name`: fs calls made from it, however deep, are `name`'s. */
export function as<T> (name: string, fn: () => Promise<T>): Promise<T> {
  return parties.run(name, fn)
}

type FsName = 'mkdir' | 'rename' | 'rm' | 'rmdir' | 'stat' | 'open'

/**
 * Calls `hook(fn, args, who)` before each call of the functions `names`
 * (awaited: it may hold the call back), until the end of test `t`. What
 * the hook returns, other than undefined, is the call's result instead.
 */
export function hookFs (t: { teardown: (fn: () => void) => void }, names: FsName[], hook: (fn: FsName, args: unknown[], who: string | undefined) => unknown): void {
  const table = fs as unknown as Record<FsName, (...args: unknown[]) => Promise<unknown>>
  const real = new Map(names.map((name) => [name, table[name]]))
  for (const name of names) {
    const original = real.get(name)!
    table[name] = async (...args: unknown[]) => {
      const replaced = await hook(name, args, parties.getStore())
      return replaced !== undefined ? replaced : await original(...args)
    }
  }
  syncBuiltinESMExports()
  t.teardown(() => {
    for (const [name, original] of real) table[name] = original
    syncBuiltinESMExports()
  })
}

/** A promise and the function that settles it: a gate a hook waits at until the test opens it. */
export function gate (): { opened: Promise<void>, open: () => void } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  return { opened, open }
}
