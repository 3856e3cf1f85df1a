import type { Component } from './component.js'
import { GATEHOUSE_CORE_DUPLICATE_COMPONENT, GATEHOUSE_CORE_INVALID_OPTIONS } from './errors.js'

/**
 * The components a recipe may name, handed in by the caller (the umbrella
 * `fastify-gatehouse` passes all of them). Order does not matter: the chain
 * sorts by each component's order.
 */
export type ComponentList = ReadonlyArray<Component<any>>

// Read by shape, not by identity: a component made by another copy of this
// package (two versions installed side by side) is just as good. D-CHAIN-08.
function isComponent (value: unknown): value is Component<any> {
  if (typeof value !== 'function') return false
  const info = (value as { component?: unknown }).component
  if (typeof info !== 'object' || info === null) return false
  const { name, order } = info as { name?: unknown, order?: unknown }
  return typeof name === 'string' && Number.isInteger(order)
}

/**
 * The components of `list` by name. Throws `GATEHOUSE_CORE_INVALID_OPTIONS`
 * for a list that is not an array or holds something else than a component,
 * and `GATEHOUSE_CORE_DUPLICATE_COMPONENT` when two different components
 * share a name (the same component listed twice is kept once).
 */
export function componentsByName (list: unknown): ReadonlyMap<string, Component<any>> {
  if (!Array.isArray(list)) {
    throw new GATEHOUSE_CORE_INVALID_OPTIONS('components', 'expected a list of components (made with defineComponent)')
  }
  const byName = new Map<string, Component<any>>()
  list.forEach((component: unknown, index) => {
    if (!isComponent(component)) {
      throw new GATEHOUSE_CORE_INVALID_OPTIONS(`components[${index}]`, 'expected a component made with defineComponent (a plain Fastify plugin is registered with app.register)')
    }
    const { name } = component.component
    const known = byName.get(name)
    if (known !== undefined && known !== component) throw new GATEHOUSE_CORE_DUPLICATE_COMPONENT(name)
    byName.set(name, component)
  })
  return byName
}

/** The names of `byName`, sorted and joined, for messages. */
export function knownNames (byName: ReadonlyMap<string, unknown>): string {
  return [...byName.keys()].sort().join(', ') || 'none'
}
