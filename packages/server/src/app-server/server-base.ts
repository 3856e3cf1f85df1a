import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync, type FastifyServerOptions, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import { middlewareChain, resolveServerLimits, serverLimitDefaults, trackRouteRules, type ComponentSetting, type Recipe, type ServerLimits } from '@fastify-gatehouse/core'
import type { ApiKeyStore, AuthOptions, UserStore } from '@fastify-gatehouse/auth'
import type { SessionOptions } from '@fastify-gatehouse/session'
// The components a server recipe can name join the registry when imported.
import '@fastify-gatehouse/errors'
import { clientErrorHandler, RedactingLogController } from '@fastify-gatehouse/logging'
import '@fastify-gatehouse/auth'
import '@fastify-gatehouse/session'
import '@fastify-gatehouse/cache'
import '@fastify-gatehouse/compression'
import '@fastify-gatehouse/cors'
import '@fastify-gatehouse/csrf'
import '@fastify-gatehouse/wellknown'
import type { AuthMethod } from '../server-app/auth-method.js'
import { OidcMethod, type OidcProviderOptions } from '../server-app/oidc-method.js'
import { PasswordMethod, type LoginOptions } from '../server-app/password-method.js'
import { serverApp } from '../server-app/server-app.js'
import type { RoutedApplication } from './routed-application.js'
import { fastifyLimitOptions, limitConnections } from './server-limits.js'
import { withUserCheck } from './session-user-check.js'

/** What every Gatehouse server takes. */
export interface ServerBaseOptions {
  /** The application mounted at `/`. */
  primary?: RoutedApplication
  /** More applications, by mount prefix (`{ '/shop': new Shop() }`). */
  apps?: Readonly<Record<string, RoutedApplication>>
  /** The login surface: 401s and anonymous 403s of browser navigations go to the login page. Default: false. */
  login?: boolean
  /** Add stacks to 5xx bodies. Default: false. */
  debug?: boolean
  /** The public origin (absolute http/https URL), for redirect URIs. */
  externalUrl?: string
  /**
   * Options of the `_server` app: `login` is the lockout policy; `oidc` the
   * OpenID Providers by name (needs `externalUrl`); `allowInsecureIssuers`
   * lets an issuer be plain http (a loopback test provider only).
   */
  serverApp?: { login?: LoginOptions, oidc?: Readonly<Record<string, OidcProviderOptions>>, allowInsecureIssuers?: boolean }
  /** Component settings, as in a recipe (`{ cors: true, compression: { minimumSize: 1000 } }`). */
  middleware?: Recipe['middleware']
  /** Options of the session component (always on: the `_server` app needs it). */
  session?: SessionOptions
  /** Fastify's logger: true, false, or a pino logger. Default: false. */
  logger?: boolean | FastifyBaseLogger
  /** Trust X-Forwarded-* from these proxies (Fastify's trustProxy). Default: false. */
  trustProxy?: FastifyServerOptions['trustProxy']
  /**
   * Server limits: request, headers, keep-alive and inactivity timeouts (ms),
   * body limit (bytes), connections. Defaults: see `serverLimitDefaults`
   * (60 s, 20 s, 72 s, 120 s, 1 MiB, 10 000). A bad key or value rejects
   * `ready()`, naming it (`server.requestTimeout: …`).
   */
  server?: ServerLimits
}

/** What the auth capability contributes to a server (see AuthMixin). */
export interface ServerAuthParts {
  authMiddleware?: AuthOptions
  users?: UserStore
  tokens?: ApiKeyStore
}

function isLogger (value: unknown): value is FastifyBaseLogger {
  return typeof value === 'object' && value !== null && typeof (value as { info?: unknown }).info === 'function'
}

/**
 * The csrf setting: on by default with the login surface (a login form is
 * what login CSRF targets), unless the caller's `middleware.csrf` says
 * otherwise; when on, it watches the session's cookie, renamed or not.
 */
function csrfSetting (given: ComponentSetting | undefined, login: boolean, cookieName: unknown): ComponentSetting | undefined {
  const setting = given ?? (login ? true : undefined)
  if (setting === undefined || setting === false || setting === 'off' || typeof cookieName !== 'string') return setting
  if (setting === true || setting === 'on') return { cookieName }
  return typeof setting === 'object' && setting.cookieName === undefined ? { ...setting, cookieName } : setting
}

/**
 * A Fastify server built from a recipe: the chain first, then the `_server`
 * app at `/_server`, then the applications. Without auth of its own; see
 * {@link AppServer}.
 */
export class ServerBase {
  /** The Fastify instance (routes may be added before `ready()`). */
  readonly fastify: FastifyInstance
  readonly #ready: Promise<void>
  readonly #plugins: Array<{ plugin: FastifyPluginAsync<any>, options: Record<string, unknown> }> = []
  #mounted = false

  constructor (options: ServerBaseOptions = {}) {
    const { logger = false, trustProxy = false } = options
    const accessLog = options.middleware?.logging !== undefined && options.middleware.logging !== false && options.middleware.logging !== 'off'
    // An OIDC callback URL carries the authorization code and the state.
    const oidc = Object.keys(options.serverApp?.oidc ?? {}).length > 0
    let limits = serverLimitDefaults
    let badLimits: unknown
    try {
      limits = resolveServerLimits(options.server)
    } catch (err) {
      badLimits = err
    }
    this.fastify = Fastify({
      ...(isLogger(logger) ? { loggerInstance: logger } : { logger }),
      trustProxy,
      // Malformed requests are answered without logging their raw bytes.
      clientErrorHandler,
      // Fastify's own request lines log the URL as sent, query included: they
      // are written with the URL redacted, and the access log replaces them
      // (with OIDC, whose callback carries the code, they are off as well).
      logController: new RedactingLogController({ disableRequestLogging: accessLog || oidc }),
      ...fastifyLimitOptions(limits)
    }) as unknown as FastifyInstance
    limitConnections(this.fastify.server, limits, this.fastify.log)
    // Sees every route from the first, so a rule (either spelling) on a route
    // added to `fastify` before the chain fails ready() instead of being lost.
    trackRouteRules(this.fastify)
    this.#ready = badLimits === undefined ? this.#build(options) : Promise.reject(badLimits)
    // Reported by ready()/serve()/inject(); not an unhandled rejection meanwhile.
    this.#ready.catch(() => {})
  }

  /**
   * Adds routes or hooks of your own inside the chain (after the `_server`
   * app), so they get the error handler, auth, sessions and route rules.
   * Call it before `ready()`/`serve()`. (Routes added to `server.fastify`
   * directly right after construction come before the chain: a rule on one
   * makes `ready()` reject with `GATEHOUSE_CORE_UNENFORCED_AUTH_RULE`.)
   */
  register<Options extends Record<string, unknown>> (plugin: FastifyPluginAsync<Options>, options?: Options): this {
    if (this.#mounted) throw new TypeError('register() must be called before the server is ready')
    this.#plugins.push({ plugin, options: options ?? {} })
    return this
  }

  /** Supplies authentication; the base has none. */
  protected async resolveAuth (_options: ServerBaseOptions): Promise<ServerAuthParts> {
    return {}
  }

  async #build (options: ServerBaseOptions): Promise<void> {
    // Let subclass constructors finish before their overrides run.
    await Promise.resolve()
    const app = this.fastify
    const { authMiddleware, users, tokens } = await this.resolveAuth(options)
    const middleware = options.middleware ?? {}
    const errors = typeof middleware.errors === 'object' ? middleware.errors : {}
    // Password sessions follow their user (disabled, deleted, re-tagged, new password).
    const session = withUserCheck(middleware.session ?? (options.session as Record<string, unknown> | undefined) ?? true, users)
    const csrf = csrfSetting(middleware.csrf, options.login ?? false, typeof session === 'object' ? session.cookieName : undefined)
    const recipe: Recipe = {
      middleware: {
        ...middleware,
        errors: { login: options.login ?? false, debug: options.debug ?? false, ...errors },
        session,
        ...(csrf === undefined ? {} : { csrf })
      },
      ...(authMiddleware === undefined ? {} : { authMiddleware: authMiddleware as Record<string, unknown> })
    }
    const methods: AuthMethod[] = users === undefined ? [] : [new PasswordMethod({ users, ...options.serverApp?.login })]
    for (const [name, provider] of Object.entries(options.serverApp?.oidc ?? {})) {
      methods.push(new OidcMethod(name, provider, { externalUrl: options.externalUrl as string, allowInsecureIssuer: options.serverApp?.allowInsecureIssuers === true }))
    }
    await middlewareChain(app, recipe)
    await app.register(serverApp, {
      prefix: '/_server',
      methods,
      ...(users === undefined && tokens === undefined ? {} : { admin: { ...(users === undefined ? {} : { users }), ...(tokens === undefined ? {} : { tokens }) } })
    })
    if (options.primary !== undefined) await app.register(async (child) => { options.primary!.register(child) })
    for (const [prefix, application] of Object.entries(options.apps ?? {})) {
      if (!prefix.startsWith('/') || prefix === '/') throw new TypeError(`apps: a mount prefix must start with "/" and not be "/", got ${JSON.stringify(prefix)}`)
      await app.register(async (child) => { application.register(child) }, { prefix })
    }
    this.#mounted = true
    for (const { plugin, options: pluginOptions } of this.#plugins) await app.register(plugin, pluginOptions)
  }

  /** Resolves when the server is built; rejects with the boot error otherwise. */
  async ready (): Promise<this> {
    await this.#ready
    await this.fastify.ready()
    return this
  }

  /** Builds, then listens; resolves with the URL. */
  async serve (host = '127.0.0.1', port = 8000): Promise<string> {
    await this.ready()
    return this.fastify.listen({ host, port })
  }

  /** Builds, then answers a fake request (Fastify's inject): for tests. */
  async inject (request: InjectOptions | string): Promise<LightMyRequestResponse> {
    await this.ready()
    return this.fastify.inject(request)
  }

  /** Stops accepting connections and waits for requests in flight. */
  async close (): Promise<void> {
    await this.#ready.catch(() => {})
    await this.fastify.close()
  }
}
