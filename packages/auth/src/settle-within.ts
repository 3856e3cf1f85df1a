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
