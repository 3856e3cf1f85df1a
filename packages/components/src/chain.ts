import {
  loadRecipe as loadRecipeWith,
  middlewareChain as middlewareChainWith,
  recipeFromConfig as recipeFromConfigWith,
  type AnyFastifyInstance,
  type ChainEntry,
  type ComponentList,
  type GatehouseConfig,
  type LoadRecipeOptions,
  type Recipe
} from '@fastify-gatehouse/core'
import { allComponents } from './all-components.js'

// The core entry points with `components` defaulting to every Gatehouse
// component, so that a recipe can name any of them with no further import.
// The umbrella re-exports them, and at fastify-gatehouse/chain without the
// server. D-CHAIN-07, D-CORE-14.

/** Options of {@link middlewareChain}: core's, with `components` optional. */
export interface ChainOptions {
  /** The components the recipe may name. Default: `allComponents`. */
  components?: ComponentList
}

/**
 * Core's `middlewareChain` with every Gatehouse component known by default:
 * `await middlewareChain(app, { middleware: { cors: true } })`. Pass
 * `components` to narrow the list or add your own (`[...allComponents, timing]`).
 */
export async function middlewareChain (app: AnyFastifyInstance, recipe: Recipe = {}, options: ChainOptions = {}): Promise<ChainEntry[]> {
  return await middlewareChainWith(app, recipe, { ...options, components: options.components ?? allComponents })
}

/** Core's `loadRecipe`, resolving names against `allComponents` unless `components` is given. */
export async function loadRecipe (path: string, options: LoadRecipeOptions = {}): Promise<GatehouseConfig> {
  return await loadRecipeWith(path, { ...options, components: options.components ?? allComponents })
}

/** Core's `recipeFromConfig`, resolving names against `allComponents` unless `components` is given. */
export function recipeFromConfig (config: unknown, options: LoadRecipeOptions = {}): GatehouseConfig {
  return recipeFromConfigWith(config, { ...options, components: options.components ?? allComponents })
}
