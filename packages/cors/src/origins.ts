import { isSerializedOrigin } from '@fastify-gatehouse/core'
import { GATEHOUSE_CORS_INVALID_OPTIONS } from './errors.js'
import type { FastifyRequest } from 'fastify'

// The `allowOrigins` forms, checked at boot, and the test a request's
// Origin meets.

/**
 * Decides whether `origin` may read responses: `true` allows it (echoed),
 * anything else does not. It is called only with a serialized origin
 * (`scheme://host[:port]`, never `null`), once per request that carries one.
 * A throw or a rejection counts as "not allowed" and is logged; no answer
 * within `callbackTimeout` is a 503 `GATEHOUSE_CORS_ORIGIN_CHECK_TIMEOUT`.
 */
export type OriginFunction = (origin: string, request: FastifyRequest) => boolean | Promise<boolean>

/**
 * The origins allowed to read responses: one origin, `*`, a comma-separated
 * string, a RegExp, a list of strings and RegExps, or a function.
 */
export type AllowOrigins = string | RegExp | ReadonlyArray<string | RegExp> | OriginFunction

/**
 * The longest Origin a RegExp or the function is shown: a host name is at
 * most 253 characters, so this only cuts garbage, and bounds the input of a
 * RegExp that backtracks (@fastify/cors's README warns of that DoS).
 */
const MAX_ORIGIN_LENGTH = 300

/**
 * `allowOrigins` as given → `*`, origins and RegExps (never the caller's
 * array), or the function. `name` is the option as the user wrote it.
 */
export function parseOrigins (value: AllowOrigins | undefined, fallback: readonly string[], name: string): ReadonlyArray<string | RegExp> | OriginFunction {
  if (value === undefined) return [...fallback]
  if (typeof value === 'function') return value
  // The schema lets any object through (a RegExp is one); only these are lists.
  if (typeof value !== 'string' && !(value instanceof RegExp) && !Array.isArray(value)) {
    throw new GATEHOUSE_CORS_INVALID_OPTIONS(name, `${describe(value)} is not an origin, a list, a RegExp or a function`)
  }
  const given: ReadonlyArray<unknown> = typeof value === 'string' ? value.split(',') : value instanceof RegExp ? [value] : value
  const items: Array<string | RegExp> = []
  for (const item of given) {
    if (typeof item === 'string') {
      const origin = item.trim()
      if (origin === '') continue
      if (origin !== '*' && !isSerializedOrigin(origin)) {
        throw new GATEHOUSE_CORS_INVALID_OPTIONS(name, `${JSON.stringify(origin)} is not an origin (scheme://host[:port], lower-case, no path or trailing slash)`)
      }
      items.push(origin)
    } else if (item instanceof RegExp) {
      // With g or y, test() starts at lastIndex, which the previous test
      // moved: every other request from an allowed origin would be refused (D-CORS-08).
      if (item.global || item.sticky) {
        throw new GATEHOUSE_CORS_INVALID_OPTIONS(name, `${String(item)}: the g and y flags make RegExp.test() stateful (it resumes at lastIndex); drop them`)
      }
      items.push(item)
    } else {
      throw new GATEHOUSE_CORS_INVALID_OPTIONS(name, `${describe(item)} is neither an origin string nor a RegExp`)
    }
  }
  if (items.length === 0) throw new GATEHOUSE_CORS_INVALID_OPTIONS(name, 'is empty, so no origin would be allowed (leave cors off instead)')
  return items
}

function describe (value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value)
  return Object.prototype.toString.call(value)
}

/**
 * The static test of a request's Origin, for a list of `*`, origins and
 * RegExps: the Access-Control-Allow-Origin value, or undefined when the
 * origin is not allowed. `echo`: name the origin rather than `*`.
 * The opaque origin `null` (sandboxed frames, file: pages) is never
 * echoed, and never shown to a RegExp (D-CORS-03).
 */
export function originTest (items: ReadonlyArray<string | RegExp>, echo: boolean): (origin: string) => string | undefined {
  const any = items.includes('*')
  const exact = new Set(items.filter((item): item is string => typeof item === 'string'))
  const patterns = items.filter((item): item is RegExp => item instanceof RegExp)
  const matches = (origin: string): boolean => {
    if (exact.has(origin)) return true
    if (patterns.length === 0 || !showable(origin)) return false
    for (const pattern of patterns) if (pattern.test(origin)) return true
    return false
  }
  return function allowOrigin (origin) {
    if (origin === 'null') return echo ? undefined : '*'
    if (!any && !matches(origin)) return undefined
    return echo ? origin : '*'
  }
}

/**
 * Whether a request's Origin may be shown to a RegExp or the function: a
 * serialized origin (lower-case `scheme://host[:port]`, as browsers send
 * it), not `null`, not over-long. Anything else is not allowed, unseen.
 * D-CORS-08, D-CORS-09.
 */
export function showable (origin: string): boolean {
  return origin.length <= MAX_ORIGIN_LENGTH && isSerializedOrigin(origin)
}
