/** A value, or a promise of it: what store methods and callbacks may return. */
export type MaybePromise<T> = T | Promise<T>

/**
 * Whether `value` has a callable `then`. Store answers are taken through
 * `Promise.resolve` only when they are thenables, so a synchronous store
 * costs no microtask, and a thenable of another promise library is honoured.
 * D-CORE-04.
 */
export function isThenable (value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
}
