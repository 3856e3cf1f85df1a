// Moved here from auth so the session component can bound its store calls
// too (DESIGN §1: components depend on core only); auth re-exports it.

/** The default time limit of a call out of Gatehouse into code it does not own, in seconds (`callbackTimeout`). */
export const CALLBACK_TIMEOUT_SECONDS = 5

/** The bounds of a `callbackTimeout`, in seconds: a millisecond (tests) to five minutes. */
export const CALLBACK_TIMEOUT_LIMITS = Object.freeze({ min: 0.001, max: 300 })

/** Why an awaited call into code Gatehouse does not own was given up on. */
export class HookTimeout extends Error {
  constructor (ms: number, call = 'a hook') {
    super(`${call} gave no answer within ${ms} ms`)
    this.name = 'HookTimeout'
  }
}

/**
 * `promise`, or a rejection with {@link HookTimeout} once `ms` pass: a hook
 * of the application (key resolver, revocation check, `basic.validate`, a
 * store) that never answers must not hold the request forever. A late
 * answer or rejection is ignored (the race has already handled it).
 */
export function settleWithin<T> (promise: Promise<T>, ms: number, call?: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new HookTimeout(ms, call)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
