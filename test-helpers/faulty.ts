// A store (or any object) whose methods can be made to hang or to throw, for
// the tests of what a caller does when a call into code it does not own
// never answers or fails. Depends on no Gatehouse package.

/** Per method name: `hang` never settles; `throw` throws a plain Error quoting the arguments (as a driver might). */
export type Faults = Partial<Record<string, 'hang' | 'throw'>>

const never = new Promise<never>(() => {})

/** `target` whose methods named in `faults` (read at each call) hang or throw; the others run as they are. */
export function faulty<T extends object> (target: T, faults: Faults): T {
  return new Proxy(target, {
    get (object, key) {
      const value = Reflect.get(object, key, object) as unknown
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        const fault = faults[String(key)]
        if (fault === 'hang') return never
        if (fault === 'throw') throw new Error(`store down at ${args.map(String).join(',')}`)
        return (value as (...a: unknown[]) => unknown).apply(object, args)
      }
    }
  })
}

/**
 * The lockout store's faults before and after a password check, with the
 * code each must answer (503 either way): `[what, faults, password, code]`,
 * the password being `right` or `wrong`.
 */
export function lockoutFaultCases (right: string, wrong: string): Array<[string, Faults, string, string]> {
  const TIMEOUT = 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT'
  const UNAVAILABLE = 'GATEHOUSE_AUTH_LOCKOUT_UNAVAILABLE'
  return [
    ['claim hangs', { claim: 'hang' }, right, TIMEOUT],
    ['claim throws', { claim: 'throw' }, right, UNAVAILABLE],
    ['reset throws after a right password', { reset: 'throw' }, right, UNAVAILABLE],
    ['reset hangs after a right password', { reset: 'hang' }, right, TIMEOUT],
    ['refund throws after a right password', { refund: 'throw' }, right, UNAVAILABLE],
    ['refund hangs after a right password', { refund: 'hang' }, right, TIMEOUT],
    ['recordFailure throws after a wrong password', { recordFailure: 'throw' }, wrong, UNAVAILABLE],
    ['recordFailure hangs after a wrong password', { recordFailure: 'hang' }, wrong, TIMEOUT]
  ]
}
