import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import type { TObject } from '@sinclair/typebox'
import { extendOptions, middlewareChain, trackRouteRules, type ComponentSetting, type Recipe } from '@fastify-gatehouse/core'
import { CALLBACK_TIMEOUT_SECONDS, passwordPolicyDefaults, type ApiKeyStore, type AuthOptions, type LockoutStore, type ResolvedPasswordPolicy, type UserStore } from '@fastify-gatehouse/auth'
import type { SessionStore } from '@fastify-gatehouse/session'
import { clientErrorHandler, RedactingLogController } from '@fastify-gatehouse/logging'
import { allComponents } from '@fastify-gatehouse/components'
import { GATEHOUSE_SERVER_REGISTER_TOO_LATE } from '../errors.js'
import type { AuthMethod } from '../server-app/auth-method.js'
import { resolveLoginOptions } from '../server-app/options.js'
import { PasswordMethod } from '../server-app/password-method.js'
import { serverApp } from '../server-app/server-app.js'
import { defaults, resolveServerBaseOptions, serverBaseOptionsSchema, type ResolvedServerBaseOptions, type ServerBaseOptions } from './options.js'
import { fastifyLimitOptions, limitConnections } from './server-limits.js'
import { withUserCheck } from './session-user-check.js'

export type { ServerBaseOptions } from './options.js'

/** What the auth capability contributes to a server (see AuthMixin). */
export interface ServerAuthParts {
  authMiddleware?: AuthOptions
  users?: UserStore
  tokens?: ApiKeyStore
  /** The session store, unless the caller's session options name one (AppServer's `database`). */
  sessionStore?: SessionStore
  /** The lockout store, unless `serverApp.login.store` names one (AppServer's `database`). */
  lockoutStore?: LockoutStore
  /** What a new password must be (AppServer's `passwordPolicy`), for the `_server` app. Default: `passwordPolicyDefaults`. */
  passwordPolicy?: ResolvedPasswordPolicy
  /** Closes what the capability opened; run by `close()`, or at once when the build fails. */
  close?: () => Promise<void>
}

/** Where AppServer mounts the `_server` app. */
const SERVER_PREFIX = '/_server'

function isLogger (value: unknown): value is FastifyBaseLogger {
  return typeof value === 'object' && value !== null && typeof (value as { info?: unknown }).info === 'function'
}

/**
 * The csrf setting: on by default whenever the session component is (the
 * `_server` app takes forms that act with the session's cookie: the
 * admin's, the account's, sign-out; SameSite=Lax still sends that cookie
 * from a sibling site), unless the caller's `middleware.csrf` says
 * otherwise; when on, it watches the session's cookie, renamed or not.
 * D-CSRF-05, D-CSRF-08.
 */
function csrfSetting (given: ComponentSetting | undefined, sessionOn: boolean, cookieName: unknown): ComponentSetting | undefined {
  const setting = given ?? (sessionOn ? true : undefined)
  if (setting === undefined || setting === false || setting === 'off' || typeof cookieName !== 'string') return setting
  if (setting === true || setting === 'on') return { cookieName }
  return typeof setting === 'object' && setting.cookieName === undefined ? extendOptions(setting, { cookieName }, 'middleware.csrf') : setting
}

/** The session setting with `store` added (a store the server opened; the setting names none). */
function withStore (setting: ComponentSetting, store: SessionStore): ComponentSetting {
  if (setting === false || setting === 'off') return setting
  const options = setting === true || setting === 'on' ? {} : setting
  return extendOptions(options, { store }, 'middleware.session')
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
  // What resolveAuth opened (the database's stores): closed once, by close() or a failed build.
  #closeStores: (() => Promise<void>) | undefined

  constructor (options: ServerBaseOptions = {}) {
    let resolved = defaults
    let bad: unknown
    try {
      resolved = resolveServerBaseOptions(options, this.optionsSchema)
    } catch (err) {
      bad = err
    }
    const { logger, trustProxy, middleware, server: limits } = resolved
    const accessLog = middleware.logging !== undefined && middleware.logging !== false && middleware.logging !== 'off'
    // An OIDC callback URL carries the authorization code and the state.
    const oidc = resolved.serverApp.oidcMethods.length > 0
    this.fastify = Fastify({
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
    limitConnections(this.fastify.server, limits, this.fastify.log)
    // Sees every route from the first, so a rule (either spelling) on a route
    // added to `fastify` before the chain fails ready() instead of being lost (D-RULES-07).
    trackRouteRules(this.fastify)
    this.#ready = bad === undefined ? this.#build(resolved, options) : Promise.reject(bad)
    // Reported by ready()/serve()/inject(); not an unhandled rejection meanwhile.
    // D-SERVER-12: a bad limit rejects ready(), the documented place for boot errors.
    this.#ready.catch(() => {})
  }

  /**
   * Adds routes or hooks of your own inside the chain (after the `_server`
   * app), so they get the error handler, auth, sessions and route rules.
   * Call it before `ready()`/`serve()`. (Routes added to `server.fastify`
   * directly right after construction come before the chain: a rule on one
   * makes `ready()` reject with `GATEHOUSE_CORE_UNENFORCED_AUTH_RULE`.)
   * D-SERVER-06.
   */
  register<Options extends Record<string, unknown>> (plugin: FastifyPluginAsync<Options>, options?: Options): this {
    if (this.#mounted) throw new GATEHOUSE_SERVER_REGISTER_TOO_LATE()
    this.#plugins.push({ plugin, options: options ?? {} })
    return this
  }

  /**
   * Every option key this server class takes; a capability mixin adds its
   * own. Read by the constructor, so an override uses no instance state.
   * D-SERVER-13: ServerBase alone refuses the auth keys.
   */
  protected get optionsSchema (): TObject {
    return serverBaseOptionsSchema
  }

  /** Supplies authentication; the base has none. */
  protected async resolveAuth (_options: ServerBaseOptions): Promise<ServerAuthParts> {
    return {}
  }

  async #build (options: ResolvedServerBaseOptions, given: ServerBaseOptions): Promise<void> {
    // Let subclass constructors finish before their overrides run.
    await Promise.resolve()
    const parts = await this.resolveAuth(given)
    this.#closeStores = parts.close
    try {
      await this.#mount(options, parts)
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

  async #mount (options: ResolvedServerBaseOptions, { authMiddleware, users, tokens, sessionStore, lockoutStore, passwordPolicy }: ServerAuthParts): Promise<void> {
    const app = this.fastify
    const { middleware } = options
    const errors = typeof middleware.errors === 'object' ? middleware.errors : {}
    // The caller's errors options win over the server's login and debug.
    // The pages the errors component links to are the `_server` app's (D-ERRORS-14): it does not depend on this package.
    const serverPages = { loginPage: `${SERVER_PREFIX}/login_page`, logoutAction: `${SERVER_PREFIX}/account/logout`, stylesheet: `${SERVER_PREFIX}/login.css` }
    const errorsExtra = Object.fromEntries(Object.entries({ login: options.login, debug: options.debug, ...serverPages }).filter(([key]) => !Object.hasOwn(errors, key)))
    // Password sessions follow their user (disabled, deleted, re-tagged, new password): D-SESSION-10.
    // D-SERVER-04: errors and session are always on; login defaults to false.
    const sessionSetting = middleware.session ?? (options.session as Record<string, unknown> | undefined) ?? true
    // The login's callbackTimeout limits the per-request standing check too (checked with the login options below).
    const timeoutMs = (options.serverApp.login?.callbackTimeout ?? CALLBACK_TIMEOUT_SECONDS) * 1000
    const session = withUserCheck(sessionStore === undefined ? sessionSetting : withStore(sessionSetting, sessionStore), users, timeoutMs)
    const csrf = csrfSetting(middleware.csrf, session !== false && session !== 'off', typeof session === 'object' ? session.cookieName : undefined)
    const recipe: Recipe = {
      middleware: {
        ...middleware,
        errors: extendOptions(errors, errorsExtra, 'middleware.errors'),
        session,
        ...(csrf === undefined ? {} : { csrf })
      },
      ...(authMiddleware === undefined ? {} : { authMiddleware: authMiddleware as Record<string, unknown> })
    }
    // The lockout options are PasswordMethod's, checked when it is made;
    // without users there is no password login, yet a bad value is refused.
    const { login, oidcMethods, account } = options.serverApp
    const methods: AuthMethod[] = users === undefined ? [] : [new PasswordMethod({ ...login, users, ...(lockoutStore === undefined ? {} : { store: lockoutStore }) })]
    if (users === undefined && login !== undefined) resolveLoginOptions(login)
    methods.push(...oidcMethods)
    await middlewareChain(app, recipe, { components: options.components ?? allComponents })
    await app.register(serverApp, {
      prefix: SERVER_PREFIX,
      methods,
      ...(account === undefined ? {} : { account }),
      passwordPolicy: passwordPolicy ?? passwordPolicyDefaults,
      ...(users === undefined && tokens === undefined ? {} : { admin: { ...(users === undefined ? {} : { users }), ...(tokens === undefined ? {} : { tokens }), callbackTimeout: timeoutMs / 1000 } })
    })
    const { primary } = options
    if (primary !== undefined) await app.register(async (child) => { primary.register(child) })
    for (const [prefix, application] of Object.entries(options.apps)) {
      await app.register(async (child) => { application.register(child) }, { prefix })
    }
    this.#mounted = true
    for (const { plugin, options: pluginOptions } of this.#plugins) await app.register(plugin, pluginOptions)
  }

  /** Resolves when the server is built; rejects with the boot error otherwise. */
  async ready (): Promise<this> {
    await this.#ready
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
    await this.#ready.catch(() => {})
    await this.fastify.close()
    await this.#closeOpenedStores()
  }
}
