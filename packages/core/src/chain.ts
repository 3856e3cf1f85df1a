import type { FastifyInstance } from 'fastify'
import type { ComponentList } from './component-list.js'
import { GATEHOUSE_CORE_NO_COMPONENTS } from './errors.js'
import { HookOrdering } from './hook-order.js'
import { isPlainObject } from './plain-object.js'
import { resolveRecipe, type Recipe } from './recipe.js'
import type { AnyFastifyInstance } from './fastify-instance.js'
import { ensureRouteRules } from './route-rules.js'
import { ensureScope } from './scope.js'

/** Options of {@link middlewareChain}. */
export interface MiddlewareChainOptions {
  /**
   * The components the recipe may name, e.g. `[errorsPlugin, corsPlugin]`
   * (`allComponents` of fastify-gatehouse holds every Gatehouse component).
   * Components not in the list do not exist for the recipe, whatever was
   * imported; `[]` installs only the scope and route-rules plugins.
   */
  components: ComponentList
}

// The names a recipe mentions, for the message of a chain without components.
function namedIn (recipe: unknown): string {
  if (!isPlainObject(recipe)) return ''
  const names = isPlainObject(recipe.middleware) ? Object.keys(recipe.middleware) : []
  if (recipe.authMiddleware !== undefined && !names.includes('auth')) names.push('auth')
  return names.length === 0 ? '' : ` (this recipe names ${names.join(', ')})`
}

/** A component the chain registered. */
export interface ChainEntry {
  readonly name: string
  readonly order: number
}

/**
 * Registers the scope and route-rules plugins, then the components a
 * recipe turns on, on `app`, in onion order:
 * request-phase hooks (onRequest … preHandler) run in ascending component
 * order, response-phase hooks (preSerialization, onSend, onResponse,
 * onError, onTimeout, onRequestAbort) in descending order. Await it before
 * declaring routes: hooks and the error handler only reach routes declared
 * after them.
 *
 * Recipe names resolve against `options.components` only; without that
 * option it throws `GATEHOUSE_CORE_NO_COMPONENTS` (the umbrella
 * `fastify-gatehouse` exports a `middlewareChain` that passes every
 * Gatehouse component). Throws (before registering anything) on an unknown
 * component name, two components with one name or an invalid option.
 * Resolves with the registered components, in order.
 */
export async function middlewareChain (
  instance: AnyFastifyInstance,
  recipe: Recipe,
  options: MiddlewareChainOptions
): Promise<ChainEntry[]> {
  const app = instance as FastifyInstance
  const components = (options as Partial<MiddlewareChainOptions> | undefined)?.components
  // D-CHAIN-06: never an empty chain by accident; core cannot default to errors (it depends on core).
  if (components === undefined) throw new GATEHOUSE_CORE_NO_COMPONENTS(namedIn(recipe))
  const steps = resolveRecipe(recipe, components)
  // The two plugins every chain has, first: request.scope, then route rules (D-RULES-15).
  await ensureScope(app)
  await ensureRouteRules(app)
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
