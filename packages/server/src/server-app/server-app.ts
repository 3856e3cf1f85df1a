import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import type { Session } from '@fastify-gatehouse/session'
import { CALLBACK_TIMEOUT_LIMITS, resolvePasswordPolicy, type ApiKeyStore, type ResolvedPasswordPolicy, type UserStore } from '@fastify-gatehouse/auth'
import { GATEHOUSE_SERVER_INVALID_OPTIONS, GATEHOUSE_SERVER_SESSION_REQUIRED } from '../errors.js'
import { registerAdminSessions } from './account/admin-sessions.js'
import { resolveAccountOptions, type AccountOptions, type ResolvedAccountOptions } from './account/options.js'
import { registerAccountLogout } from './account/logout.js'
import { registerAccount } from './account/register.js'
import { registerAccountPage } from './account-page/register.js'
import { registerAdminApi } from './admin-api.js'
import type { AuthMethod } from './auth-method.js'
import { acceptFormBodies, isBrowserForm, refuseFormBodies } from './form-body.js'
import { acceptEmptyJsonBodies } from './json-body.js'
import { registerLoginPage } from './login-page.js'
import { registerLogoutPage } from './logout-page.js'
import { PasswordMethod } from './password-method.js'
import { strictBodies } from './strict-bodies.js'

/** Options of the `_server` app. */
export interface ServerAppOptions {
  /** Login methods, listed in this order (password first). */
  methods: readonly AuthMethod[]
  /** With `users` and/or `tokens`: the SUPERADMIN-only admin API under `/users` and `/tokens`. */
  admin?: {
    users?: UserStore
    tokens?: ApiKeyStore
    /** Seconds each call of these stores may take (then 503 `GATEHOUSE_AUTH_CALLBACK_TIMEOUT`). AppServer passes `serverApp.login.callbackTimeout`. Default: 5. */
    callbackTimeout?: number
  }
  /**
   * The account endpoints under `/account` (who am I, change password, my
   * sessions, sign out). Default: on when there is a login method (the
   * password change only with a `PasswordMethod`); `false` turns them off.
   */
  account?: AccountOptions | false
  /**
   * What a new password set here must be (the admin API, the account's
   * change of password); refused ones get 400 `GATEHOUSE_SERVER_WEAK_PASSWORD`.
   * AppServer passes its `passwordPolicy`. Default: `passwordPolicyDefaults`.
   */
  passwordPolicy?: ResolvedPasswordPolicy
}

/**
 * The `_server` app: `POST /login` (from the password method), `POST
 * /logout`, `GET /login_methods`, each method's routes, the account
 * endpoints (`/account/…`) and, with `admin`, the admin API. Route-owning:
 * register it with a prefix (`app.register(serverApp, { prefix: '/_server',
 * methods })`); it needs the session component on the parent. The URLs it
 * lists (login methods, the login page's assets) start with that prefix.
 */
export const serverApp: FastifyPluginAsync<ServerAppOptions> = async function serverApp (app, options) {
  const { account, passwordPolicy, admin, ...rest } = options
  if (admin?.callbackTimeout !== undefined && !(admin.callbackTimeout >= CALLBACK_TIMEOUT_LIMITS.min && admin.callbackTimeout <= CALLBACK_TIMEOUT_LIMITS.max)) {
    throw new GATEHOUSE_SERVER_INVALID_OPTIONS('admin.callbackTimeout', `must be a number of seconds from ${CALLBACK_TIMEOUT_LIMITS.min} to ${CALLBACK_TIMEOUT_LIMITS.max}`)
  }
  await mountServerApp(app, {
    ...rest,
    ...(admin === undefined ? {} : { admin }),
    // On by default wherever someone can sign in (D-SERVER-22); the options are checked even when off.
    account: resolveAccountOptions(account),
    accountGiven: account !== undefined,
    passwordPolicy: resolvePasswordPolicy(passwordPolicy, 'passwordPolicy')
  })
}

/** {@link ServerAppOptions} resolved: what AppServer hands over (its options resolved once, by resolveServerOptions). */
export interface ResolvedServerAppOptions extends Omit<ServerAppOptions, 'account' | 'passwordPolicy'> {
  account: ResolvedAccountOptions | false
  /** Whether `account` was given: given, the endpoints are on without a login method. */
  accountGiven: boolean
  passwordPolicy: ResolvedPasswordPolicy
}

/** The `_server` app from resolved options: {@link serverApp} without checking them again. */
export const resolvedServerApp: FastifyPluginAsync<ResolvedServerAppOptions> = async function serverApp (app, options) {
  await mountServerApp(app, options)
}

async function mountServerApp (app: FastifyInstance, options: ResolvedServerAppOptions): Promise<void> {
  if (!app.hasPlugin('@fastify-gatehouse/session')) throw new GATEHOUSE_SERVER_SESSION_REQUIRED()
  const ids = new Set<string>()
  for (const method of options.methods ?? []) {
    if (ids.has(method.id)) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('methods', `login method ${method.id} is given twice`)
    ids.add(method.id)
  }
  const { account, passwordPolicy } = options
  // Before any route: every body here refuses unknown fields (D-SERVER-08).
  strictBodies(app)
  acceptFormBodies(app)
  // Content-type JSON and no body is no body, as the routes that take none say (D-SERVER-53).
  acceptEmptyJsonBodies(app)

  // D-SERVER-15: URLs under the prefix this app is really registered at.
  const describe = () => (options.methods ?? []).map((m) => m.describe(app.prefix))
  app.get('/login_methods', async () => ({ methods: describe() }))
  const loginPage = registerLoginPage(app, app.prefix, describe)

  app.post('/logout', async (request, reply) => {
    const session: Session | undefined = request.scope.session
    if (session === undefined) throw new GATEHOUSE_SERVER_SESSION_REQUIRED()
    session.logout()
    if (isBrowserForm(request.headers)) return reply.code(303).header('location', '/').send()
    return { status: 'ok' }
  })

  for (const method of options.methods ?? []) await method.register(app, { loginPage, methods: options.methods ?? [] })
  const accountOn = account !== false && (options.accountGiven || (options.methods ?? []).length > 0)
  registerLogoutPage(app, accountOn)
  if (accountOn) {
    const password = (options.methods ?? []).find((method): method is PasswordMethod => method instanceof PasswordMethod)
    await registerAccount(app, { ...account, passwords: password?.passwords, policy: passwordPolicy })
    registerAccountPage(app, { freshFor: account.freshFor, passwordChange: password !== undefined, policy: passwordPolicy })
  } else {
    // D-SERVER-31: every page's sign-out form posts here, account endpoints or not.
    registerAccountLogout(app, app.prefix)
  }
  if (options.admin !== undefined) {
    const { users, tokens, callbackTimeout } = options.admin
    // Encapsulated: the form refusal holds for the admin routes only (the sign-in and account forms stay).
    await app.register(async function adminApi (admin) {
      refuseFormBodies(admin)
      registerAdminApi(admin, users, tokens, passwordPolicy, callbackTimeout)
      registerAdminSessions(admin)
    })
  }
}
