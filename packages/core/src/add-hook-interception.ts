import type { FastifyInstance } from 'fastify'

export type AddHook = (this: FastifyInstance, name: string, fn: unknown) => FastifyInstance

/**
 * Told of each hook added to the intercepted instance itself (not to its
 * encapsulated children); returns true when it keeps the hook, so that it is
 * not added to Fastify, false to let it through.
 */
export type OwnHookObserver = (hookName: string, fn: unknown) => boolean

/**
 * Runs `register()` with `app.addHook` replaced by a function that shows
 * `observe` every hook added to `app` itself, then puts back what `app` had
 * (its own property, or none, so that the prototype's shows again) even when
 * `register()` throws. Hooks added to child instances, and those `observe`
 * does not keep, go straight to the original `addHook`. Shared by the chain's
 * HookOrdering (D-CHAIN-01) and the registration-order warning (D-CHAIN-13).
 */
export async function interceptAddHook (app: FastifyInstance, observe: OwnHookObserver, register: () => PromiseLike<unknown>): Promise<void> {
  const own = Object.getOwnPropertyDescriptor(app, 'addHook')
  const original = app.addHook as unknown as AddHook
  const intercept: AddHook = function addHook (this: FastifyInstance, hookName, fn) {
    if (this === app && observe(hookName, fn)) return this
    return original.call(this, hookName, fn)
  }
  Object.defineProperty(app, 'addHook', { value: intercept, configurable: true, writable: true, enumerable: own?.enumerable ?? true })
  try {
    await register()
  } finally {
    if (own === undefined) delete (app as unknown as Record<string, unknown>).addHook
    else Object.defineProperty(app, 'addHook', own)
  }
}
