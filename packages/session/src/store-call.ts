import { isThenable, settleWithin } from '@fastify-gatehouse/core'

/**
 * Calls `fn` (named `call`, e.g. `SessionStore.get`) with a limit of `ms`:
 * a synchronous answer stays synchronous (the memory store: no timer, no
 * promise); a promise that has not settled by then rejects with core's
 * `HookTimeout`, and its late answer or rejection is ignored (never an
 * unhandled rejection). A throw or rejection passes through as it is: the
 * caller turns it into its 503. D-SESSION-33.
 */
export function withinLimit<T> (call: string, ms: number, fn: () => T | PromiseLike<T>): T | Promise<T> {
  const answer = fn()
  if (!isThenable(answer)) return answer
  const pending = Promise.resolve(answer)
  // The race below handles the rejection; this keeps a late one from being unhandled.
  pending.catch(() => {})
  return settleWithin(pending, ms, call)
}
