import { extendOptions, type ComponentSetting } from '@fastify-gatehouse/core'
import { callOut, type UserStore } from '@fastify-gatehouse/auth'
import type { CheckIdentity } from '@fastify-gatehouse/session'

/** The `via` of sessions signed in by the password method (`PasswordMethod.id`). */
const PASSWORD = 'password'

/**
 * Re-checks password sessions against the user store on every request:
 * the user must still exist, be enabled and have the credential stamp the
 * session was signed in with (a new password ends older sessions); the
 * caller gets the user's current tags. Other sessions (OIDC, an app's own
 * `login`) keep the tags they were given.
 * `standing` has `timeoutMs` to answer (`serverApp.login.callbackTimeout`;
 * then the session component's 503, D-AUTH-62).
 * D-SESSION-11 and D-SESSION-12; OIDC sessions are told apart by `via` (D-OIDC-11).
 */
export function userSessionCheck (users: UserStore, timeoutMs: number): CheckIdentity {
  return function checkPasswordSession (identity, record) {
    if (record.via !== PASSWORD) return record
    return Promise.resolve(callOut('UserStore.standing', timeoutMs, () => users.standing(identity))).then((standing) => standing !== null && standing.stamp === record.stamp ? standing : null)
  }
}

/**
 * The session setting with {@link userSessionCheck} added when there is a
 * user store; a `checkIdentity` of the caller's own is kept as given.
 */
export function withUserCheck (setting: ComponentSetting, users: UserStore | undefined, timeoutMs: number): ComponentSetting {
  if (users === undefined || setting === false || setting === 'off') return setting
  const options = setting === true || setting === 'on' ? {} : setting
  if (options.checkIdentity !== undefined) return setting
  // A config file's section stays checked once (D-CHAIN-12): only the added callback is checked.
  return extendOptions(options, { checkIdentity: userSessionCheck(users, timeoutMs) }, 'middleware.session')
}
