// Identity that holds across copies of this package. With two copies of
// @fastify-gatehouse/core in one process (two versions side by side, or one
// deduplicated differently under two dependents), each has its own classes
// and module state; a chain, a component or trackRouteRules from one copy
// must still recognise what the other made. So the classes other packages
// test with `instanceof` carry a brand under a registered symbol
// (`Symbol.for`, one per process), and the route-rule marks live in one
// process-wide place. The keys end in a format version: a copy that changes
// what a mark means must use a new key. D-CORE-05.

/**
 * Makes `value instanceof target` true for instances of `target` made by any
 * copy of this package (they carry the brand `fastify-gatehouse.<name>`).
 * Subclasses keep the ordinary `instanceof`.
 */
export function brandClass (target: abstract new (...args: any[]) => unknown, name: string): void {
  const brand = Symbol.for(`fastify-gatehouse.${name}`)
  Object.defineProperty(target.prototype, brand, { value: true })
  Object.defineProperty(target, Symbol.hasInstance, {
    value: function hasInstance (this: unknown, value: unknown): boolean {
      if (this !== target) return Function.prototype[Symbol.hasInstance].call(this, value)
      return (typeof value === 'object' || typeof value === 'function') && value !== null &&
        (value as Record<symbol, unknown>)[brand] === true
    }
  })
}

/** The one value of `name` in this process, created by the first copy that asks. */
export function processWide<T> (name: string, create: () => T): T {
  const key = Symbol.for(`fastify-gatehouse.${name}`)
  const store = globalThis as unknown as Record<symbol, T | undefined>
  store[key] ??= create()
  return store[key]
}
