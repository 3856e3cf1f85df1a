import { Type } from '@sinclair/typebox'
import { NO_CONTROL_CHARACTERS_PATTERN } from '@fastify-gatehouse/core'

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
  /**
   * Where the 403 page's sign-out forms post (login on: a signed-in browser
   * refused by a route rule gets that page). It must sign out and, given a
   * `next` field, go to the login page with it. Default: `/_server/account/logout`.
   */
  logoutAction?: string
  /** The stylesheet of the 403 page (a file: the page's CSP forbids inline styles). Default: `/_server/login.css`. */
  stylesheet?: string
  /** Realm of the challenge added to a 401 that carries none (login on). Default: `gatehouse`. */
  realm?: string
  /** Answer unmatched routes with this component's 404. Default: `true`. */
  notFound?: boolean
}

/** {@link ErrorsOptions} with every default applied. */
export interface ResolvedErrorsOptions {
  readonly debug: boolean
  readonly login: boolean
  readonly loginPage: string
  readonly logoutAction: string
  readonly stylesheet: string
  readonly realm: string
  readonly notFound: boolean
}

export const defaults: ResolvedErrorsOptions = Object.freeze({
  debug: false,
  login: false,
  loginPage: '/_server/login_page',
  logoutAction: '/_server/account/logout',
  stylesheet: '/_server/login.css',
  realm: 'gatehouse',
  notFound: true
})

// A path of this origin: one leading slash (not `//` or `/\`), no query, no space.
const LOCAL_PATH = '^/(?![/\\\\])[^\\s?#]*$'

export const errorsOptionsSchema = Type.Object({
  debug: Type.Optional(Type.Boolean()),
  login: Type.Optional(Type.Boolean()),
  loginPage: Type.Optional(Type.String({ pattern: LOCAL_PATH })),
  logoutAction: Type.Optional(Type.String({ pattern: LOCAL_PATH })),
  stylesheet: Type.Optional(Type.String({ pattern: LOCAL_PATH })),
  realm: Type.Optional(Type.String({ pattern: NO_CONTROL_CHARACTERS_PATTERN })),
  notFound: Type.Optional(Type.Boolean())
}, { additionalProperties: false })

/** Applies the defaults; the schema has checked every key (no option depends on another). */
export function resolveErrorsOptions (options: ErrorsOptions): ResolvedErrorsOptions {
  return Object.freeze({ ...defaults, ...options })
}
