// fastify-gatehouse/chain: the middleware chain that knows every Gatehouse
// component, and `allComponents`, without the server: importing it loads
// neither @fastify-gatehouse/server nor openid-client (D-CORE-14). The same
// exports as @fastify-gatehouse/components; the main entry has them too.
export { allComponents, middlewareChain, loadRecipe, recipeFromConfig } from '@fastify-gatehouse/components'
export type { ChainOptions } from '@fastify-gatehouse/components'
