import type { FastifyInstance } from 'fastify'
import { extendOptions, middlewareChain, type ComponentSetting, type Recipe } from '@fastify-gatehouse/core'
import type { SessionStore } from '@fastify-gatehouse/session'
import { allComponents } from '@fastify-gatehouse/components'
import type { AuthMethod } from '../server-app/auth-method.js'
import { PasswordMethod } from '../server-app/password-method.js'
import { resolvedServerApp } from '../server-app/server-app.js'
import type { ResolvedServerOptions } from './resolve-server-options.js'
import type { ServerStores } from './server-stores.js'
import { withUserCheck } from './session-user-check.js'

/** Where AppServer mounts the `_server` app. */
export const SERVER_PREFIX = '/_server'

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

function recipeOf (options: ResolvedServerOptions, { authMiddleware, users, sessionStore }: ServerStores): Recipe {
  const { middleware } = options
  const errors = typeof middleware.errors === 'object' ? middleware.errors : {}
  // The caller's errors options win over the server's login and debug.
  // The pages the errors component links to are the `_server` app's (D-ERRORS-14): it does not depend on this package.
  const serverPages = { loginPage: `${SERVER_PREFIX}/login_page`, logoutAction: `${SERVER_PREFIX}/account/logout`, stylesheet: `${SERVER_PREFIX}/login.css` }
  const errorsExtra = Object.fromEntries(Object.entries({ login: options.login, debug: options.debug, ...serverPages }).filter(([key]) => !Object.hasOwn(errors, key)))
  // Password sessions follow their user (disabled, deleted, re-tagged, new password): D-SESSION-10.
  // D-SERVER-04: errors and session are always on; login defaults to false.
  const sessionSetting = middleware.session ?? (options.session as Record<string, unknown> | undefined) ?? true
  // The login's callbackTimeout limits the per-request standing check too.
  const session = withUserCheck(sessionStore === undefined ? sessionSetting : withStore(sessionSetting, sessionStore), users, options.serverApp.login.callbackTimeout * 1000)
  const csrf = csrfSetting(middleware.csrf, session !== false && session !== 'off', typeof session === 'object' ? session.cookieName : undefined)
  return {
    middleware: {
      ...middleware,
      errors: extendOptions(errors, errorsExtra, 'middleware.errors'),
      session,
      ...(csrf === undefined ? {} : { csrf })
    },
    ...(authMiddleware === undefined ? {} : { authMiddleware: authMiddleware as Record<string, unknown> })
  }
}

/**
 * Mounts a server on `app`, in the order the chain needs (DESIGN pitfall
 * 2): the chain first, then the `_server` app at `/_server`, then the
 * applications (the caller's plugins come after). Everything it takes is
 * resolved already: nothing here checks an option again.
 */
export async function mountServer (app: FastifyInstance, options: ResolvedServerOptions, stores: ServerStores): Promise<void> {
  const { users, tokens, lockoutStore } = stores
  const { login, oidcMethods, account, accountGiven } = options.serverApp
  const methods: AuthMethod[] = users === undefined ? [] : [new PasswordMethod({ users }, lockoutStore === undefined ? login : { ...login, store: login.store ?? lockoutStore })]
  methods.push(...oidcMethods)
  await middlewareChain(app, recipeOf(options, stores), { components: options.components ?? allComponents })
  await app.register(resolvedServerApp, {
    prefix: SERVER_PREFIX,
    methods,
    account,
    accountGiven,
    passwordPolicy: options.passwordPolicy,
    ...(users === undefined && tokens === undefined ? {} : { admin: { ...(users === undefined ? {} : { users }), ...(tokens === undefined ? {} : { tokens }), callbackTimeout: login.callbackTimeout } })
  })
  const { primary } = options
  if (primary !== undefined) await app.register(async (child) => { primary.register(child) })
  for (const [prefix, application] of Object.entries(options.apps)) {
    await app.register(async (child) => { application.register(child) }, { prefix })
  }
}
