import { Type } from '@sinclair/typebox'
import { MAX_FRESH_SECONDS, validateOptions } from '@fastify-gatehouse/core'

/** Options of the account endpoints (`serverApp.account`; `false` turns them off). */
export interface AccountOptions {
  /**
   * How recent a sign-in must be, in seconds, to change the password or end
   * sessions (the routes' `fresh`). Default: 600.
   */
  freshFor?: number
}

/** {@link AccountOptions} with the defaults applied. */
export interface ResolvedAccountOptions {
  readonly freshFor: number
}

export const accountDefaults: ResolvedAccountOptions = Object.freeze({ freshFor: 600 })

/** Schema of {@link AccountOptions} (the config file's `server_app.account` takes the same keys, snake_case). */
export const accountOptionsSchema = Type.Object({
  freshFor: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FRESH_SECONDS }))
}, { additionalProperties: false })

/** Schema of the `account` setting: the options, or `false`. */
export const accountSettingSchema = Type.Union([Type.Literal(false), accountOptionsSchema])

/**
 * The account setting with the defaults applied: `false` stays off;
 * undefined is the defaults (whether the endpoints are on then is the
 * `_server` app's call). Schema failures name `label`.
 */
export function resolveAccountOptions (options: AccountOptions | false | undefined, label = 'serverApp.account'): ResolvedAccountOptions | false {
  if (options === false) return false
  if (options === undefined) return accountDefaults
  validateOptions(accountOptionsSchema, options, label)
  return Object.freeze({ freshFor: options.freshFor ?? accountDefaults.freshFor })
}
