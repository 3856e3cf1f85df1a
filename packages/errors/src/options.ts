import { Type } from '@sinclair/typebox'

/** Options of the errors component; every key is optional. */
export interface ErrorsOptions {
  /** Add the stack to 5xx bodies. Never in production. Default: `false`. */
  debug?: boolean
  /**
   * The login surface is on: 401s (and 403s of anonymous browser
   * navigations) are negotiated towards the login page. Default: `false`.
   */
  login?: boolean
  /** Where browsers are sent to sign in. Default: `/_server/login_page`. */
  loginPage?: string
  /** Realm of the challenge added to a 401 that carries none (login on). Default: `gatehouse`. */
  realm?: string
  /** Answer unmatched routes with this component's 404. Default: `true`. */
  notFound?: boolean
}

/** {@link ErrorsOptions} with every default applied. */
export type ResolvedErrorsOptions = Required<ErrorsOptions>

export const defaults: Readonly<ResolvedErrorsOptions> = Object.freeze({
  debug: false,
  login: false,
  loginPage: '/_server/login_page',
  realm: 'gatehouse',
  notFound: true
})

export const errorsOptionsSchema = Type.Object({
  debug: Type.Optional(Type.Boolean()),
  login: Type.Optional(Type.Boolean()),
  loginPage: Type.Optional(Type.String({ pattern: '^/(?![/\\\\])[^\\s?#]*$' })),

  realm: Type.Optional(Type.String({ pattern: '^[^\\x00-\\x1f\\x7f]*$' })),
  notFound: Type.Optional(Type.Boolean())
}, { additionalProperties: false })

export function resolveErrorsOptions (options: ErrorsOptions): ResolvedErrorsOptions {
  return { ...defaults, ...options }
}
