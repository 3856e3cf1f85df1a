import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import { trackRouteRules } from '@fastify-gatehouse/core'
import { clientErrorHandler, RedactingLogController } from '@fastify-gatehouse/logging'
import { GATEHOUSE_SERVER_INVALID_OPTIONS, GATEHOUSE_SERVER_REGISTER_TOO_LATE } from '../errors.js'
import { mountServer } from './mount-server.js'
import type { AppServerOptions } from './options.js'
import { appServerDefaults, isResolvedServerOptions, resolveServerOptions, type ResolvedServerOptions } from './resolve-server-options.js'
import { fastifyLimitOptions, limitConnections } from './server-limits.js'
import { openServerStores } from './server-stores.js'

export type { AppServerOptions } from './options.js'

function isLogger (value: unknown): value is FastifyBaseLogger {
  return typeof value === 'object' && value !== null && typeof (value as { info?: unknown }).info === 'function'
}

// The Fastify instance of a server: its logger, proxies and limits are fixed when it is made.
function fastifyFor ({ logger, trustProxy, middleware, server: limits, serverApp }: ResolvedServerOptions): FastifyInstance {
  const accessLog = middleware.logging !== undefined && middleware.logging !== false && middleware.logging !== 'off'
  // An OIDC callback URL carries the authorization code and the state.
  const oidc = serverApp.oidcMethods.length > 0
  const fastify = Fastify({
    ...(isLogger(logger) ? { loggerInstance: logger } : { logger }),
    trustProxy,
    // Malformed requests are answered without logging their raw bytes (D-LOGGING-07).
    clientErrorHandler,
    // Fastify's own request lines log the URL as sent, query included: they
    // are written with the URL redacted, and the access log replaces them
    // (with OIDC, whose callback carries the code, they are off as well).
    // D-LOGGING-02, D-LOGGING-06, D-LOGGING-09.
    logController: new RedactingLogController({ disableRequestLogging: accessLog || oidc }),
    ...fastifyLimitOptions(limits)
  }) as unknown as FastifyInstance
  limitConnections(fastify.server, limits, fastify.log)
  // Sees every route from the first, so a rule (either spelling) on a route
  // added to `fastify` before the chain fails ready() instead of being lost (D-RULES-07).
  trackRouteRules(fastify)
  return fastify
}

/** A plugin of your own for {@link AppServer.create}: the plugin, or the plugin with its options. */
export type AppServerPlugin = FastifyPluginAsync<any> | { readonly plugin: FastifyPluginAsync<any>, readonly options?: Record<string, unknown> }

/** The second argument of {@link AppServer.create}. */
export interface AppServerCreateOptions {
  /**
   * Plugins of your own, registered in order as `server.register(plugin,
   * options)` would (inside the chain, after the `_server` app), before the
   * build: `create` returns a built server, too late to register. D-SERVER-64.
   */
  readonly plugins?: readonly AppServerPlugin[]
}

/**
 * The ready server: the chain from a recipe, caller authentication, the
 * `_server` app (login, logout, login methods, the SUPERADMIN API) and your
 * applications.
 *
 * ```ts
 * const server = await AppServer.create({ primary: new Shop(), users: { alice: { password, tags: 'admin' } }, login: true })
 * await server.serve('127.0.0.1', 8000)
 * ```
 *
 * The constructor resolves the options (`resolveServerOptions`, once) and
 * makes the Fastify instance; the build (the stores, the chain, the
 * `_server` app, the applications) runs once, from the first `ready()`,
 * `serve()` or `inject()`. D-SERVER-59.
 */
export class AppServer {
  /** The Fastify instance (routes may be added before `ready()`). */
  readonly fastify: FastifyInstance
  readonly #options: ResolvedServerOptions | undefined
  // The options' error: reported by ready()/serve()/inject(), the documented place for boot errors (D-SERVER-12).
  readonly #invalid: unknown
  readonly #plugins: Array<{ plugin: FastifyPluginAsync<any>, options: Record<string, unknown> }> = []
  #build: Promise<void> | undefined
  #mounted = false
  // What the build opened (the database's stores): closed once, by close() or a failed build.
  #closeStores: (() => Promise<void>) | undefined

  /**
   * Resolves the options, registers `plugins` (as {@link register} does),
   * builds the server and waits until it is ready: a bad option, a bad
   * plugin entry or a failed boot rejects here, with nothing left open.
   */
  static async create (input: AppServerOptions | ResolvedServerOptions = {}, { plugins = [] }: AppServerCreateOptions = {}): Promise<AppServer> {
    const server = new AppServer(input)
    try {
      if (!Array.isArray(plugins)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('plugins', 'expected an array of plugins (a function, or { plugin, options })')
      plugins.forEach((entry: unknown, index) => { server.#registerEntry(entry, `plugins[${index}]`) })
      return await server.ready()
    } catch (err) {
      await server.close()
      throw err
    }
  }

  /** `input`: the options, or what `resolveServerOptions` made of them (taken as it is). */
  constructor (input: AppServerOptions | ResolvedServerOptions = {}) {
    try {
      this.#options = isResolvedServerOptions(input) ? input : resolveServerOptions(input)
    } catch (err) {
      this.#invalid = err
    }
    this.fastify = fastifyFor(this.#options ?? appServerDefaults)
  }

  /**
   * Adds routes or hooks of your own inside the chain (after the `_server`
   * app), so they get the error handler, auth, sessions and route rules.
   * Call it before `ready()`/`serve()`. (Routes added to `server.fastify`
   * directly come before the chain: a rule on one makes `ready()` reject
   * with `GATEHOUSE_CORE_UNENFORCED_AUTH_RULE`.) D-SERVER-06.
   */
  register<Options extends Record<string, unknown>> (plugin: FastifyPluginAsync<Options>, options?: Options): this {
    if (this.#mounted) throw new GATEHOUSE_SERVER_REGISTER_TOO_LATE()
    this.#plugins.push({ plugin, options: options ?? {} })
    return this
  }

  #registerEntry (entry: unknown, path: string): void {
    if (typeof entry === 'function') {
      this.register(entry as FastifyPluginAsync)
      return
    }
    const { plugin, options } = (typeof entry === 'object' && entry !== null ? entry : {}) as { plugin?: unknown, options?: unknown }
    if (typeof plugin !== 'function') throw new GATEHOUSE_SERVER_INVALID_OPTIONS(path, 'expected a plugin (a function) or { plugin, options }')
    if (options !== undefined && (typeof options !== 'object' || options === null)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}.options`, 'expected an object')
    this.register(plugin as FastifyPluginAsync, options as Record<string, unknown> | undefined)
  }

  // The build, started once, by the first caller that needs the server built.
  #built (): Promise<void> {
    if (this.#build === undefined) {
      this.#build = this.#options === undefined ? Promise.reject(this.#invalid) : this.#buildFrom(this.#options)
      // Reported by ready()/serve()/inject(); not an unhandled rejection meanwhile.
      this.#build.catch(() => {})
    }
    return this.#build
  }

  async #buildFrom (options: ResolvedServerOptions): Promise<void> {
    const stores = await openServerStores(options)
    this.#closeStores = stores.close
    try {
      await mountServer(this.fastify, options, stores)
      this.#mounted = true
      for (const { plugin, options: pluginOptions } of this.#plugins) await this.fastify.register(plugin, pluginOptions)
    } catch (err) {
      await this.#closeOpenedStores()
      throw err
    }
  }

  async #closeOpenedStores (): Promise<void> {
    const close = this.#closeStores
    this.#closeStores = undefined
    await close?.()
  }

  /** Builds the server (once); resolves when it is ready, rejects with the boot error otherwise. */
  async ready (): Promise<this> {
    await this.#built()
    try {
      await this.fastify.ready()
    } catch (err) {
      // A failed boot leaves no pool open, whether or not close() is called.
      await this.#closeOpenedStores()
      throw err
    }
    return this
  }

  /** Builds, then listens; resolves with the URL. */
  async serve (host = '127.0.0.1', port = 8000): Promise<string> {
    await this.ready()
    try {
      return await this.fastify.listen({ host, port })
    } catch (err) {
      // The port taken, say: the stores this server opened close too, as on any failed boot (D-SERVER-18).
      await this.#closeOpenedStores()
      throw err
    }
  }

  /** Builds, then answers a fake request (Fastify's inject): for tests. */
  async inject (request: InjectOptions | string): Promise<LightMyRequestResponse> {
    await this.ready()
    return this.fastify.inject(request)
  }

  /** Stops accepting connections, waits for requests in flight, then closes the stores the server opened (`database`). */
  async close (): Promise<void> {
    await this.#build?.catch(() => {})
    await this.fastify.close()
    await this.#closeOpenedStores()
  }
}

/**
 * @deprecated `AppServer` has authentication built in: `AuthMixin(anything)`
 * is `AppServer`, kept because the spec lists `AuthMixin` among the
 * importable symbols (DESIGN §1). `class MyServer extends AuthMixin(Base)`
 * keeps working as a subclass of `AppServer`; write `extends AppServer`.
 * D-SERVER-63.
 */
export function AuthMixin (_base?: unknown): typeof AppServer {
  return AppServer
}
