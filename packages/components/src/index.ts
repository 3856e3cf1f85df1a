// Every Gatehouse component in one list, and core's chain entry points
// defaulting to it; the server is not imported (D-CORE-14).
export { allComponents } from './all-components.js'
export { middlewareChain, loadRecipe, recipeFromConfig } from './chain.js'
export type { ChainOptions } from './chain.js'
export { memoryDriver, memoryStoreSchema } from './memory-driver.js'
