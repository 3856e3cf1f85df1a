import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import type { TObject } from '@sinclair/typebox'
import { GATEHOUSE_CORE_INVALID_COMPONENT } from './errors.js'
import { validateOptions } from './validate.js'
import { isValidatedFor } from './validated-options.js'
import { watchRegistrationOrder } from './registration-order.js'
import { ensureRouteRules } from './route-rules.js'
import { ensureScope } from './scope.js'

/**
 * Chain positions. The ranges of DESIGN §3 (`core` … `transformation`) are
 * for your own components; the named entries are the built-in components'
 * places, so no package writes its order as a bare number. Lower orders
 * see the request first and the response last.
 */
export const ORDER = Object.freeze({
  core: 100,
  errors: 100,
  wellknown: 150,
  logging: 200,
  security: 300,
  cors: 300,
  csrf: 310,
  authentication: 400,
  auth: 400,
  session: 450,
  custom: 500,
  transformation: 900,
  cache: 900,
  compression: 900
})

// Keys Fastify itself reads from the options of `app.register`.
const REGISTER_KEYS = new Set(['prefix', 'logLevel', 'logSerializers'])

/** What a component is made of. */
export interface ComponentDefinition<Options extends object> {
  /** Name used in recipes (`middleware: { <name>: … }`); lower-case, digits, `-`. */
  name: string
  /** Position in the chain, 1–999. Default: 500. */
  order?: number
  /** Whether an unmentioned component is on. Default: false. */
  default?: boolean
  /**
   * TypeBox schema of the options (camelCase keys). Unknown keys and wrong
   * types are refused at registration with `GATEHOUSE_CORE_INVALID_OPTIONS`.
   * Config files use the snake_case form of the same keys. The options are
   * checked once: by the component registered alone, or by the chain or
   * config-file loader that hands them to it.
   */
  schema?: TObject
  /** The Fastify plugin; it receives the validated options. */
  plugin: FastifyPluginAsync<Options>
}

/** What a recipe knows of a component: its name, order, default and schema. */
export interface ComponentInfo {
  readonly name: string
  readonly order: number
  readonly default: boolean
  readonly schema: TObject | undefined
}

/**
 * A component: a Fastify plugin (wrapped with fastify-plugin, so its hooks
 * cover the whole app) carrying its facts.
 */
export type Component<Options extends object = Record<string, unknown>> =
  FastifyPluginAsync<Options> & { readonly component: ComponentInfo }

const NAME = /^[a-z][a-z0-9-]*$/

/** Chain order: ascending order; equal orders by name. */
export function compareComponents (a: Component<any>, b: Component<any>): number {
  return a.component.order - b.component.order ||
    (a.component.name < b.component.name ? -1 : a.component.name > b.component.name ? 1 : 0)
}

/**
 * Defines a component: validates the definition, wraps the plugin so that
 * its options are checked against `schema` and `request.scope` and route
 * rules exist (`ensureScope`, `ensureRouteRules`), and
 * returns it with its facts. Nothing global changes: a recipe can name the
 * component only where it is handed to the chain (`middlewareChain(app,
 * recipe, { components: [...] })`). The result is a plain Fastify plugin:
 * `app.register(component, options)` works alone, and the chain places it
 * by its order.
 * D-CHAIN-05.
 */
export function defineComponent<Options extends object> (definition: ComponentDefinition<Options>): Component<Options> {
  const { name, order = ORDER.custom, default: enabledByDefault = false, schema, plugin } = definition
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new GATEHOUSE_CORE_INVALID_COMPONENT(`name ${JSON.stringify(name)} must match ${String(NAME)}`)
  }
  if (!Number.isInteger(order) || order < 1 || order > 999) {
    throw new GATEHOUSE_CORE_INVALID_COMPONENT(`order of "${name}" must be an integer from 1 to 999`)
  }
  if (typeof plugin !== 'function') {
    throw new GATEHOUSE_CORE_INVALID_COMPONENT(`plugin of "${name}" must be a function`)
  }

  const wrapped = async function gatehouseComponent (app: FastifyInstance, rawOptions: Options): Promise<void> {
    const options: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(rawOptions ?? {})) {
      if (!REGISTER_KEYS.has(key)) options[key] = value
    }
    // D-CHAIN-12: registered alone, the component checks its options; from a
    // chain or a config file they arrive checked, and are not checked again.
    if (schema !== undefined && !isValidatedFor(rawOptions, schema)) validateOptions(schema, options, `${name} options`)
    // Registered alone, a component still has request.scope and route rules under it (D-RULES-15).
    await ensureScope(app)
    await ensureRouteRules(app)
    await watchRegistrationOrder(app, name, order, () => plugin.call(app, app, options as Options))
  }

  const component = fp(wrapped, { name: `@fastify-gatehouse/${name}`, fastify: '5.x' }) as unknown as Component<Options>
  Object.defineProperty(component, 'component', {
    value: Object.freeze({ name, order, default: enabledByDefault, schema }),
    enumerable: true
  })
  return component
}
