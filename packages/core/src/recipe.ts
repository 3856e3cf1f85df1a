import type { Component } from './component.js'
import { compareComponents } from './component.js'
import { componentsByName, knownNames, type ComponentList } from './component-list.js'
import { GATEHOUSE_CORE_INVALID_OPTIONS, GATEHOUSE_CORE_UNKNOWN_COMPONENT } from './errors.js'
import { joinPath } from './validate.js'
import { resolveSection } from './resolve-channel.js'
import { checkOnce, isValidatedFor, resolvedFor, shallowFrozen } from './validated-options.js'
import { isPlainObject } from './plain-object.js'

/** How a recipe turns one component on or off: `true`/`'on'` (defaults), `false`/`'off'`, or its options. */
export type ComponentSetting = boolean | 'on' | 'off' | Record<string, unknown>

/**
 * Which components run and with what options (camelCase keys). Components
 * not named follow their default (of Gatehouse's, only `errors` is on by
 * default). Names resolve against the components list passed with the recipe.
 */
export interface Recipe {
  /** Component name → setting. */
  middleware?: Record<string, ComponentSetting>
  /**
   * Options of the `auth` component (`basic`, `bearer`, `jwt`, …). Giving
   * them turns `auth` on unless `middleware.auth` is `false`/`'off'`.
   */
  authMiddleware?: Record<string, unknown>
}

/**
 * One component the recipe turns on, with its options: a frozen copy,
 * checked against the component's schema, which the component does not
 * check again when registered with it.
 */
export interface ChainStep {
  readonly component: Component<any>
  readonly options: Readonly<Record<string, unknown>>
}

function settingOptions (setting: unknown, path: string): Record<string, unknown> | null {
  if (setting === true || setting === 'on') return {}
  if (setting === false || setting === 'off') return null
  if (isPlainObject(setting)) return setting
  throw new GATEHOUSE_CORE_INVALID_OPTIONS(path, "expected true, false, 'on', 'off' or an options object")
}

/**
 * Resolves a recipe against `components`: validates it and returns the
 * components that are on, in chain order (ascending order, then name).
 * Throws `GATEHOUSE_CORE_UNKNOWN_COMPONENT` for a name not in the list,
 * `GATEHOUSE_CORE_DUPLICATE_COMPONENT` for two components with one name and
 * `GATEHOUSE_CORE_INVALID_OPTIONS` for a bad setting or option. A recipe
 * the config loader resolved against this same list (what `loadRecipe`
 * returns) is not resolved again: its steps are handed on (D-CONFIG-17).
 */
export function resolveRecipe (recipe: Recipe, components: ComponentList): ChainStep[] {
  const byName = componentsByName(components)
  if (!isPlainObject(recipe)) throw new GATEHOUSE_CORE_INVALID_OPTIONS('recipe', 'expected an object')
  for (const key of Object.keys(recipe)) {
    if (key !== 'middleware' && key !== 'authMiddleware') {
      throw new GATEHOUSE_CORE_INVALID_OPTIONS(joinPath('recipe', key), 'unknown recipe section (expected middleware, authMiddleware)')
    }
  }
  const loaded = resolvedFor(recipe, components)
  if (loaded !== undefined) return [...loaded as readonly ChainStep[]]
  return resolveSection('recipe', () => stepsOf(recipe, byName))
}

function stepsOf (recipe: Recipe, byName: ReturnType<typeof componentsByName>): ChainStep[] {
  const middleware = recipe.middleware ?? {}
  if (!isPlainObject(middleware)) throw new GATEHOUSE_CORE_INVALID_OPTIONS('middleware', 'expected an object')

  const chosen = new Map<string, Record<string, unknown> | null>()
  for (const [name, setting] of Object.entries(middleware)) {
    if (!byName.has(name)) throw new GATEHOUSE_CORE_UNKNOWN_COMPONENT(name, knownNames(byName))
    chosen.set(name, settingOptions(setting, joinPath('middleware', name)))
  }

  // D-CONFIG-02: authMiddleware arms auth; its options are given in one place, not also in middleware.auth.
  if (recipe.authMiddleware !== undefined) {
    if (!isPlainObject(recipe.authMiddleware)) {
      throw new GATEHOUSE_CORE_INVALID_OPTIONS('authMiddleware', 'expected an object')
    }
    if (!byName.has('auth')) {
      throw new GATEHOUSE_CORE_UNKNOWN_COMPONENT('auth', `${knownNames(byName)}; authMiddleware configures authPlugin of @fastify-gatehouse/auth`)
    }
    const explicit = chosen.get('auth')
    if (explicit !== undefined && explicit !== null && Object.keys(explicit).length > 0) {
      throw new GATEHOUSE_CORE_INVALID_OPTIONS('middleware.auth', 'auth options are given in authMiddleware; give them in one place')
    }
    // `middleware.auth: false` still wins: the recipe author switched it off.
    if (explicit !== null) chosen.set('auth', recipe.authMiddleware)
  }

  // D-CHAIN-12: the whole recipe is validated, with recipe paths, before anything registers;
  // options a config file's loader already checked are not checked again, nor by the component.
  const steps: ChainStep[] = []
  for (const component of byName.values()) {
    const { name, schema } = component.component
    const given = chosen.has(name) ? chosen.get(name) : (component.component.default ? {} : null)
    if (given === null || given === undefined) continue
    const options = schema === undefined || isValidatedFor(given, schema)
      ? given
      : checkOnce(schema, shallowFrozen(given), name === 'auth' && recipe.authMiddleware !== undefined ? 'authMiddleware' : joinPath('middleware', name))
    steps.push({ component, options })
  }
  return steps.sort((a, b) => compareComponents(a.component, b.component))
}
