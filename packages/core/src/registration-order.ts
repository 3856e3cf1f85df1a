import type { FastifyInstance } from 'fastify'
import { interceptAddHook } from './add-hook-interception.js'
import { bootWarning } from './boot-warning.js'

// Hooks that see the request: Fastify runs them in the order they were added.
const REQUEST_PHASE = new Set(['onRequest', 'preParsing', 'preValidation', 'preHandler'])

interface Registered {
  readonly name: string
  readonly order: number
}

// The components that added request hooks to each instance, in registration order.
const registered = new WeakMap<object, Registered[]>()

/**
 * Runs `register` (a component's plugin) while noting whether it adds a
 * request-phase hook to `app` itself; then, when it did and a component of a
 * higher order already added one to the same instance, warns: registered
 * alone, components run in the order the app registers them, not in their
 * order (`middlewareChain` sorts them), so e.g. cors registered after auth
 * leaves its headers off auth's refusals. A warning, not a boot error: the
 * app may mean it, and nothing is unsafe.
 * D-CHAIN-13.
 */
export async function watchRegistrationOrder (app: FastifyInstance, name: string, order: number, register: () => Promise<unknown>): Promise<void> {
  let addsRequestHooks = false
  await interceptAddHook(app, (hookName) => {
    if (REQUEST_PHASE.has(hookName)) addsRequestHooks = true
    return false
  }, register)
  if (!addsRequestHooks) return
  let list = registered.get(app)
  if (list === undefined) registered.set(app, list = [])
  const later = list.filter((r) => r.order > order)
  list.push({ name, order })
  if (later.length === 0) return
  const names = later.map((r) => `${r.name} (order ${r.order})`).join(', ')
  bootWarning(app.log, 'GATEHOUSE_CORE_LATE_COMPONENT', `gatehouse: ${name} (order ${order}) was registered after ${names} on the same instance; Fastify runs their request hooks in registration order, so ${name} sees each request after ${later.length === 1 ? 'it' : 'them'} (e.g. a refusal by auth carries no cors headers). Register components in ascending order, or use middlewareChain.`)
}
