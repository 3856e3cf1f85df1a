import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify'
import { brandClass, processWide } from '@fastify-gatehouse/core'
import { GATEHOUSE_SERVER_INVALID_ROUTE } from '../errors.js'

/** What `@route` takes besides the path. */
export interface RouteDecoratorOptions {
  /** Default: GET. */
  method?: HTTPMethods | HTTPMethods[]
  /** Who may call it (see route rules); none: open. */
  authRule?: string
  /** How recent the caller's sign-in must be, in seconds (see the `fresh` route option); none: any. */
  fresh?: number
  schema?: FastifySchema
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown

// Routes per application instance, collected by the decorators' initializers
// (which run before any field of the instance exists). Process-wide: `@route`
// and RoutedApplication may come from two copies of this package.
const declared = processWide('server.declaredRoutes.v1', () => new WeakMap<object, Array<{ path: string, options: RouteDecoratorOptions, handler: Handler }>>())

/**
 * Declares a method of a {@link RoutedApplication} as a route (TypeScript
 * standard decorators):
 * `@route('/orders', { method: 'POST', authRule: 'admin|ops' })`.
 */
export function route (path: string, options: RouteDecoratorOptions = {}) {
  if (typeof path !== 'string' || !path.startsWith('/')) throw new GATEHOUSE_SERVER_INVALID_ROUTE(`the path must start with "/", got ${JSON.stringify(path)}`)
  return function decorate<This extends object> (method: (this: This, request: FastifyRequest, reply: FastifyReply) => unknown, context: ClassMethodDecoratorContext<This>): void {
    if (context.static || context.private) throw new GATEHOUSE_SERVER_INVALID_ROUTE(`it decorates public instance methods; ${String(context.name)} is ${context.static ? 'static' : 'private'}`)
    context.addInitializer(function (this: This) {
      let routes = declared.get(this)
      if (routes === undefined) declared.set(this, routes = [])
      routes.push({ path, options, handler: method.bind(this) })
    })
  }
}

/**
 * An application made of `@route` methods. AppServer mounts it (as
 * `primary`, or under a prefix in `apps`); `register(app)` mounts it on any
 * Fastify instance.
 */
export class RoutedApplication {
  /** The routes this instance declared, for inspection. */
  get routes (): ReadonlyArray<{ path: string, method: HTTPMethods | HTTPMethods[] }> {
    return (declared.get(this) ?? []).map(({ path, options }) => ({ path, method: options.method ?? 'GET' }))
  }

  /** Adds the declared routes to `app`. */
  register (app: FastifyInstance): void {
    for (const { path, options, handler } of declared.get(this) ?? []) {
      app.route({
        method: options.method ?? 'GET',
        url: path,
        handler,
        ...(options.schema === undefined ? {} : { schema: options.schema }),
        config: {
          ...(options.authRule === undefined ? {} : { authRule: options.authRule }),
          ...(options.fresh === undefined ? {} : { fresh: options.fresh })
        }
      })
    }
  }
}
// `gatehouse serve --app` checks `instanceof`; the app module may use another copy of this package (D-CORE-05).
brandClass(RoutedApplication, 'server.RoutedApplication.v1')
