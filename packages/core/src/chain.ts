import type { FastifyInstance } from 'fastify'
import { components as sharedRegistry, type ComponentRegistry } from './component.js'
import { HookOrdering } from './hook-order.js'
import { resolveRecipe, type Recipe } from './recipe.js'
import { ensureScope, type AnyFastifyInstance } from './scope.js'

/** Options of {@link middlewareChain}. */
export interface MiddlewareChainOptions {
  /** Where component names are looked up. Default: the shared registry. */
  registry?: ComponentRegistry
}

/** A component the chain registered. */
export interface ChainEntry {
  readonly name: string
  readonly order: number
}

/**
 * Registers the components a recipe turns on, on `app`, in onion order:
 * request-phase hooks (onRequest … preHandler) run in ascending component
 * order, response-phase hooks (preSerialization, onSend, onResponse,
 * onError, onTimeout, onRequestAbort) in descending order. Await it before
 * declaring routes: hooks and the error handler only reach routes declared
 * after them.
 *
 * Throws (before registering anything) on an unknown component name or an
 * invalid option. Resolves with the registered components, in order.
 */
export async function middlewareChain (
  instance: AnyFastifyInstance,
  recipe: Recipe = {},
  options: MiddlewareChainOptions = {}
): Promise<ChainEntry[]> {
  const app = instance as FastifyInstance
  const steps = resolveRecipe(recipe, options.registry ?? sharedRegistry)
  await ensureScope(app)
  const ordering = new HookOrdering(app)
  for (const { component, options: componentOptions } of steps) {
    const { name, order } = component.component
    await ordering.capture(name, order, () => app.register(component, componentOptions))
  }
  ordering.flush()
  // Held hooks are added through Fastify's queue; settle it so that routes
  // declared next see them.
  await app.after()
  return steps.map(({ component }) => ({ name: component.component.name, order: component.component.order }))
}
