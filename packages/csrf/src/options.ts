import { Type } from '@sinclair/typebox'
import { GATEHOUSE_CSRF_INVALID_OPTIONS } from './errors.js'
import { isSerializedOrigin, parseList, TOKEN_PATTERN, type ListOption } from '@fastify-gatehouse/core'

/** Options of the csrf component; every key is optional. */
export interface CsrfOptions {
  /** The session cookie whose presence makes a request worth checking. Default: `session_id` (the session component's). */
  cookieName?: string
  /** Other origins whose unsafe requests are accepted (`https://admin.example.com`); a list or comma string. Default: `[]`. */
  allowOrigins?: ListOption
}

/** {@link CsrfOptions} with defaults applied and the list parsed. */
export interface ResolvedCsrfOptions {
  readonly cookieName: string
  readonly allowOrigins: readonly string[]
}

export const defaults: ResolvedCsrfOptions = Object.freeze({
  cookieName: 'session_id',
  allowOrigins: Object.freeze([] as string[])
})

export const csrfOptionsSchema = Type.Object({
  cookieName: Type.Optional(Type.String({ pattern: TOKEN_PATTERN })),
  allowOrigins: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())]))
}, { additionalProperties: false })

/** Applies the defaults; every allowed origin must be a serialized origin. */
export function resolveCsrfOptions (options: CsrfOptions): ResolvedCsrfOptions {
  const allowOrigins = options.allowOrigins === undefined ? [] : parseList(options.allowOrigins)
  for (const origin of allowOrigins) {
    if (origin === '*') throw new GATEHOUSE_CSRF_INVALID_OPTIONS('allowOrigins', '"*" would turn the check off; leave csrf off instead')
    if (!isSerializedOrigin(origin)) {
      throw new GATEHOUSE_CSRF_INVALID_OPTIONS('allowOrigins', `${JSON.stringify(origin)} is not an origin (scheme://host[:port], lower-case, no path or trailing slash)`)
    }
  }
  return Object.freeze({ cookieName: options.cookieName ?? defaults.cookieName, allowOrigins: Object.freeze(allowOrigins) })
}
