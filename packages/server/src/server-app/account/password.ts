import type { FastifyInstance } from 'fastify'
import { errorForLog } from '@fastify-gatehouse/core'
import { passwordProblem, type ResolvedPasswordPolicy } from '@fastify-gatehouse/auth'
import { badPasswordChange, lockedOut, passwordConflict, samePassword, weakPassword, wrongPassword } from '../../errors.js'
import { isBrowserForm } from '../form-body.js'
import type { PasswordCheck } from '../password-check.js'
import { sessionCaller } from './caller.js'
import { backToAccount, type AccountDetail, type AccountError } from './form-answer.js'
import { endOtherSessions } from './session-list.js'

interface PasswordBody { current_password?: unknown, new_password?: unknown, new_password_confirm?: unknown }
// Values are checked by the handler, so a missing one gets its own answer
// (a browser form goes back to the page); unknown fields are 400s (D-SERVER-08).
const PASSWORD_BODY = { type: ['object', 'null'], additionalProperties: false, properties: { current_password: {}, new_password: {}, new_password_confirm: {} } }

/** The longest current password read (as the login endpoint reads). */
const MAX_PASSWORD = 1024

/** What the password change needs. */
export interface PasswordChangeContext {
  /** The login's password check: the same users and the same lockout. */
  readonly passwords: PasswordCheck
  readonly policy: ResolvedPasswordPolicy
  readonly freshFor: number
  readonly prefix: string
}

/**
 * `POST /account/password` `{ current_password, new_password,
 * new_password_confirm? }`, JSON or form, for a caller signed in with a
 * password of the user store, within `freshFor` of the sign-in. The
 * current password goes through the login's lockout (429 while locked; a
 * wrong one is a counted failure, 403); the new one through the password
 * policy (400 naming the rule), and must differ from the current one (400
 * `GATEHOUSE_SERVER_SAME_PASSWORD`). Then the password is set, every password
 * session of the identity ends (every instance sharing the store; an OIDC
 * sign-in of the same name is someone else's: D-SERVER-41), and the
 * caller's is signed in again under a new id with the new credential stamp
 * (ASVS 7.2.4).
 */
export function registerPasswordChange (app: FastifyInstance, context: PasswordChangeContext): void {
  const { passwords, policy, freshFor, prefix } = context
  app.post<{ Body: PasswordBody }>('/account/password', { config: { fresh: freshFor }, schema: { body: PASSWORD_BODY } }, async (request, reply) => {
    const { session, identity } = sessionCaller(request)
    const browser = isBrowserForm(request.headers)
    const refuse = (error: AccountError, err: Error, detail?: AccountDetail) => {
      if (browser) return backToAccount(reply, prefix, { error }, detail)
      throw err
    }
    const { current_password: current, new_password: chosen, new_password_confirm: confirm } = (request.body ?? {}) as PasswordBody
    if (typeof current !== 'string' || current === '' || current.length > MAX_PASSWORD || typeof chosen !== 'string' || chosen === '') {
      return refuse('missing', badPasswordChange('current_password and new_password are required'))
    }
    // D-SERVER-26: optional; a form without JavaScript cannot compare the two itself.
    if (confirm !== undefined && confirm !== chosen) return refuse('mismatch', badPasswordChange('new_password_confirm differs from new_password'))
    // D-PASSWORD-10: compared as they are hashed (NFC); the two fields of this
    // request only, so nothing about the stored password is learnt, and no attempt is counted.
    if (chosen.normalize('NFC') === current.normalize('NFC')) return refuse('same-password', samePassword())
    // Before the current password is checked: a refused choice costs no attempt.
    const problem = passwordProblem(chosen, identity, policy)
    if (problem !== null) return refuse('weak', weakPassword(problem), { rule: problem.rule })
    // D-SERVER-25: the login's own check, under its lockout; a wrong password is 403, not 401 (the session is valid).
    const checked = await passwords.check(identity, current, request.ip)
    if (checked.outcome === 'locked') return refuse('locked', lockedOut(checked.retryAfter), { retry: checked.retryAfter })
    if (checked.outcome === 'invalid') return refuse('wrong-password', wrongPassword())

    const existed = session.exists
    // The stamp of the password set here, proven by the password itself: a
    // change overtaking this one (or a disable, a delete) leaves this caller
    // signed out rather than signed in under the other's stamp (D-SESSION-23).
    // Within callbackTimeout, and what a store throws never quotes the new password (D-AUTH-63).
    const changed = await passwords.callUsers('setPassword', async (users) => await users.setPassword(identity, chosen))
      ? await passwords.callUsers('verify', async (users) => await users.verify(identity, chosen))
      : null
    if (changed === null) {
      session.logout()
      return refuse('conflict', passwordConflict())
    }
    let ended = 0
    try {
      // The password sessions of the identity, this one included (it gets a
      // new id below); an OIDC sign-in of the same name is someone else's.
      ended = await endOtherSessions(app.sessionStore, { identity, via: 'password' }, null)
    } catch (err) {
      // Every older session still ends on its next request: its stamp is stale (D-SESSION-11).
      request.log.warn({ err: errorForLog(err) }, 'account: could not end the sessions of a new password now; they end on their next request')
    }
    session.login(identity, changed.tags, { via: 'password', stamp: changed.stamp })
    const sessionsEnded = Math.max(0, ended - (existed ? 1 : 0))
    if (browser) return backToAccount(reply, prefix, { done: 'password-changed' }, { ended: sessionsEnded })
    return { status: 'ok', sessions_ended: sessionsEnded }
  })
}
