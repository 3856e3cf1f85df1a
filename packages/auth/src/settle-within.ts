/** Why an awaited hook was given up on. */
export class HookTimeout extends Error {
  constructor (ms: number) {
    super(`no answer within ${ms} ms`)
    this.name = 'HookTimeout'
  }
}

/**
 * `promise`, or a rejection with {@link HookTimeout} once `ms` pass: a hook
 * of the application (key resolver, revocation check) that never answers
 * must not hold the request forever.
 */
export function settleWithin<T> (promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new HookTimeout(ms)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
