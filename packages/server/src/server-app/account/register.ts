import type { FastifyInstance } from 'fastify'
import type { ResolvedPasswordPolicy } from '@fastify-gatehouse/auth'
import type { PasswordCheck } from '../password-check.js'
import { callerGate } from './caller.js'
import { registerAccountLogout } from './logout.js'
import { registerMe } from './me.js'
import { registerMySessions } from './my-sessions.js'
import type { ResolvedAccountOptions } from './options.js'
import { registerPasswordChange } from './password.js'

/** What the account endpoints need from the `_server` app. */
export interface AccountContext extends ResolvedAccountOptions {
  /** The password login's check (users and lockout); without it there is no password change. */
  readonly passwords: PasswordCheck | undefined
  readonly policy: ResolvedPasswordPolicy
}

/**
 * The account endpoints under `<prefix>/account`, each group in a child
 * instance whose onRequest hook admits its kind of caller (see callerGate):
 * `me` for any signed-in caller; the sessions for session callers; the
 * password change for password users (only with a password login). The
 * children share the `_server` app's strict bodies and form parser.
 */
export async function registerAccount (app: FastifyInstance, context: AccountContext): Promise<void> {
  const prefix = app.prefix
  const { freshFor, passwords, policy } = context
  await app.register(async function accountMe (child) {
    child.addHook('onRequest', callerGate('signed-in', prefix))
    registerMe(child)
  })
  await app.register(async function accountSessions (child) {
    child.addHook('onRequest', callerGate('session', prefix))
    registerMySessions(child, freshFor, prefix)
  })
  if (passwords !== undefined) {
    await app.register(async function accountPassword (child) {
      child.addHook('onRequest', callerGate('password', prefix))
      registerPasswordChange(child, { passwords, policy, freshFor, prefix })
    })
  }
  registerAccountLogout(app, prefix)
}
