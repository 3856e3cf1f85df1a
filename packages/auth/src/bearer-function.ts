import { Avatar, isPlainObject } from '@fastify-gatehouse/core'
import type { FastifyRequest } from 'fastify'
import { StaticTokens, type BearerEntry } from './bearer.js'
import { callCallback, type CallbackAnswer } from './callback-result.js'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'

/**
 * Checks a bearer token: the caller (an Avatar), their tags (the caller is
 * then identity `bearer` with these tags: return an Avatar to name them),
 * or null (then the JWT verifiers are tried, if any; else 401). May be
 * async; called on every request that reaches it (never cached), and given
 * `callbackTimeout` to answer (then 503). Throw an `HttpError` to answer
 * with your own status; anything else thrown is a 500 (logged by its class
 * and code only, never its message: D-AUTH-63).
 */
export type BearerAuth = (token: string, request: FastifyRequest) => CallbackAnswer | Promise<CallbackAnswer>

/**
 * The `bearer` option: a map of static tokens (`{ ci: { token, tags } }`)
 * or a function (`{ auth (token, request) { … } }`), told apart by type: a
 * token named `auth` is an entry, an object.
 */
export type BearerOption = Readonly<Record<string, BearerEntry>> | { readonly auth: BearerAuth }

/** A function checking bearer tokens (see {@link BearerAuth}). */
export class TokenFunction {
  readonly #auth: BearerAuth
  readonly #timeoutMs: number

  constructor (auth: BearerAuth, timeoutMs: number) {
    this.#auth = auth
    this.#timeoutMs = timeoutMs
  }

  /** The caller for `token`, or null. */
  find (token: string, request: unknown): Avatar | null | Promise<Avatar | null> {
    return callCallback('bearer.auth', this.#timeoutMs, () => this.#auth(token, request as FastifyRequest),
      (tags) => new Avatar('bearer', { tags, backend: 'bearer' }))
  }
}

/**
 * Builds the `bearer` option's tokens: static ones, a function, or neither.
 * Throws `GATEHOUSE_AUTH_INVALID_CONFIG` for a mix of the two or an `auth`
 * that is neither a function nor a token entry (a function cannot come
 * from a config file).
 * `timeoutMs` limits each call of the function.
 * D-AUTH-41 (bearer has two forms, as basic has three), D-AUTH-46.
 */
export function bearerSource (bearer: unknown, timeoutMs: number): StaticTokens | TokenFunction | undefined {
  if (bearer === undefined) return undefined
  if (!isPlainObject(bearer)) throw new GATEHOUSE_AUTH_INVALID_CONFIG('bearer', 'must be a map of tokens or { auth: <function> }')
  const { auth } = bearer as Record<string, unknown>
  if (auth !== undefined && !isPlainObject(auth)) {
    if (typeof auth !== 'function') {
      throw new GATEHOUSE_AUTH_INVALID_CONFIG('bearer.auth', 'must be a function (token, request) (give it in code: a config file cannot hold one), or the entry of a token named auth: { token, tags }')
    }
    const others = Object.keys(bearer).filter((key) => key !== 'auth')
    if (others.length > 0) {
      throw new GATEHOUSE_AUTH_INVALID_CONFIG('bearer', `with auth (a function) it takes no other key, found ${others.map((k) => JSON.stringify(k)).join(', ')}: check those tokens in the function`)
    }
    return new TokenFunction(auth as BearerAuth, timeoutMs)
  }
  if (Object.keys(bearer).length === 0) return undefined
  return new StaticTokens(bearer as Record<string, BearerEntry>)
}
