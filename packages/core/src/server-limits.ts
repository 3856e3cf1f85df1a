import { Type } from '@sinclair/typebox'
import { GATEHOUSE_CORE_INVALID_OPTIONS } from './errors.js'
import { validateOptions } from './validate.js'
import { resolveSection } from './resolve-channel.js'
import { recordResolved, resolvedFor } from './validated-options.js'

/**
 * Limits of the HTTP server: AppServer's `server` option, and the config
 * file's `server:` section (snake_case: `request_timeout`, …). Times are in
 * milliseconds; every key is optional.
 */
export interface ServerLimits {
  /** Time to receive a whole request, head and body; then 408 and the connection is closed. 0: none. Default: 60 000. */
  requestTimeout?: number
  /** Time to receive a request's head (at most `requestTimeout`); then 408 and closed. 0: none. Default: 20 000. */
  headersTimeout?: number
  /** How long an idle keep-alive connection is kept between requests (≥ 1). Default: 72 000, longer than the 60 s idle timeout of common load balancers. */
  keepAliveTimeout?: number
  /** Socket inactivity (nothing read or written, e.g. a client that stopped reading or a handler that never answers) before the connection is destroyed. 0: none. Default: 120 000. */
  connectionTimeout?: number
  /** Largest request body, in bytes (≥ 1); larger ones get 413. Default: 1 048 576 (1 MiB). */
  bodyLimit?: number
  /** Connections open at once; more are refused at accept. 0: unlimited. Default: 10 000. */
  maxConnections?: number
  /** Requests served on one keep-alive connection before it is closed. 0: unlimited. Default: 0. */
  maxRequestsPerSocket?: number
}

/** {@link ServerLimits} with every default applied. */
export type ResolvedServerLimits = Readonly<Required<ServerLimits>>

// D-SERVER-12: defaults a careful operator expects, assuming a proxy in front for keep-alive.
export const serverLimitDefaults: ResolvedServerLimits = Object.freeze({
  requestTimeout: 60_000,
  headersTimeout: 20_000,
  keepAliveTimeout: 72_000,
  connectionTimeout: 120_000,
  bodyLimit: 1_048_576,
  maxConnections: 10_000,
  maxRequestsPerSocket: 0
})

// Node's timers hold at most 2^31 - 1 ms; a larger value would fire at once.
// D-SERVER-12: keepAliveTimeout and bodyLimit ≥ 1 (Fastify reads 0 as its default); timers ≤ 2³¹−1 ms.
const MAX_TIMER = 2_147_483_647
const millis = (minimum: number) => Type.Integer({ minimum, maximum: MAX_TIMER })

/** Schema of {@link ServerLimits}. */
export const serverLimitsSchema = Type.Object({
  requestTimeout: Type.Optional(millis(0)),
  headersTimeout: Type.Optional(millis(0)),
  keepAliveTimeout: Type.Optional(millis(1)),
  connectionTimeout: Type.Optional(millis(0)),
  bodyLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  maxConnections: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  maxRequestsPerSocket: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))
}, { additionalProperties: false })

const LIMIT_KEYS = Object.keys(serverLimitsSchema.properties) as Array<keyof ServerLimits>

/** Schema of the config file's `server` section: where to listen, the public origin, and the server limits. */
export const serverSectionSchema = Type.Object({
  host: Type.Optional(Type.String({ minLength: 1 })),
  port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  externalUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$' })),
  ...serverLimitsSchema.properties
}, { additionalProperties: false })

/**
 * The limit keys of an object that has others too (the config file's
 * `server` section). For a section the config loader made, the limits it
 * resolved there (defaults applied), which {@link resolveServerLimits} and
 * AppServer take as they are: a file's limits are resolved once.
 */
export function pickServerLimits (section: Readonly<Record<string, unknown>>): ServerLimits {
  const loaded = resolvedFor(section, serverSectionSchema)
  if (loaded !== undefined) return loaded as ResolvedServerLimits
  const limits: Record<string, unknown> = {}
  for (const key of LIMIT_KEYS) if (section[key] !== undefined) limits[key] = section[key]
  return limits as ServerLimits
}

/**
 * The limits with the defaults applied (an unset `headersTimeout` is at most
 * `requestTimeout`, as in Node). Throws `GATEHOUSE_CORE_INVALID_OPTIONS`
 * naming the key as `label` and `spell` (the key as the caller writes it)
 * give it: an unknown key, a value that is not a whole number in range, or a
 * `headersTimeout` longer than `requestTimeout` (the head is part of the
 * request).
 */
export function resolveServerLimits (given: unknown = {}, label = 'server', spell: (key: string) => string = (key) => key): ResolvedServerLimits {
  // Limits this function made (or the loader, through pickServerLimits) are taken as they are.
  const resolved = resolvedFor(given, serverLimitsSchema)
  if (resolved !== undefined) return resolved as ResolvedServerLimits
  return resolveSection('limits', () => {
    validateOptions(serverLimitsSchema, given, label)
    return limitsWithDefaults(given as ServerLimits, label, spell)
  })
}

/**
 * Limits already checked against their schema (by {@link resolveServerLimits},
 * or by the config loader's section schema) with the defaults applied and
 * the head checked against the request; frozen and recorded as resolved.
 * The caller says on the `gatehouse:resolve` channel that `limits` is
 * resolved (resolveSection).
 */
export function limitsWithDefaults (set: ServerLimits, label: string, spell: (key: string) => string): ResolvedServerLimits {
  const limits = { ...serverLimitDefaults, ...set }
  if (set.headersTimeout === undefined && limits.requestTimeout > 0) limits.headersTimeout = Math.min(limits.headersTimeout, limits.requestTimeout)
  if (limits.requestTimeout > 0 && limits.headersTimeout > limits.requestTimeout) {
    throw new GATEHOUSE_CORE_INVALID_OPTIONS(`${label}.${spell('headersTimeout')}`,
      `${limits.headersTimeout} ms must not exceed ${spell('requestTimeout')} (${limits.requestTimeout} ms): the head is part of the request`)
  }
  const frozen = Object.freeze(limits)
  recordResolved(frozen, serverLimitsSchema, frozen)
  return frozen
}
