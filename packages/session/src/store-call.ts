import { HookTimeout, isThenable, settleWithin } from '@fastify-gatehouse/core'
import { storeUnavailable } from './errors.js'

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

const STORE_CALLS = new Set<PropertyKey>(['get', 'set', 'touch', 'destroy', 'destroyAllFor', 'listFor'])

/**
 * `store` as `app.sessionStore` shows it: each of the six SessionStore
 * methods has `ms` to answer, then rejects with 503
 * `GATEHOUSE_SESSION_STORE_UNAVAILABLE` (the account's and the admin's
 * session lists and sign-outs are bounded like the component's own calls);
 * a throw passes through as it is; anything else is the store's own
 * (`close`, a driver's extras). D-SESSION-33.
 */
export function limitedStore<S extends object> (store: S, ms: number): S {
  return new Proxy(store, {
    get (target, key) {
      const value = Reflect.get(target, key, target) as unknown
      if (typeof value !== 'function') return value
      const fn = value as (...args: unknown[]) => unknown
      if (!STORE_CALLS.has(key)) return fn.bind(target)
      const call = `SessionStore.${String(key)}`
      return (...args: unknown[]) => {
        const answer = withinLimit(call, ms, () => fn.apply(target, args))
        return isThenable(answer) ? Promise.resolve(answer).catch((err: unknown) => { throw err instanceof HookTimeout ? storeUnavailable(err, call) : err }) : answer
      }
    }
  })
}
