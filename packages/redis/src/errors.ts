import createError from '@fastify/error'
import { createCodedError, type CodedError } from '@fastify-gatehouse/core'

// Every code of this package; listed in docs/error-codes.md.

// --- boot errors ----------------------------------------------------------------

/** A Redis store was given bad options (no or two connections, a bad URL, a bad prefix): a boot error. */
export const GATEHOUSE_REDIS_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_REDIS_INVALID_OPTIONS', '%s: %s', 500, TypeError)

/**
 * `RedisSessionStore.connect` / `RedisLockoutStore.connect`: Redis did not
 * become ready within `connectTimeout`. The message names the store and
 * host:port, never the password.
 */
export const GATEHOUSE_REDIS_CONNECT = createError<[string, string, string]>(
  'GATEHOUSE_REDIS_CONNECT', '%s cannot reach Redis at %s: %s', 500)

/** A store's Lua script was called or answered out of its contract (a bug, or not Redis on the other end). */
export const GATEHOUSE_REDIS_SCRIPT = createError<[string]>(
  'GATEHOUSE_REDIS_SCRIPT', 'Redis script: %s', 500)

// --- request failures -------------------------------------------------------------

/** A Redis command failed or timed out (503): the store cannot answer right now. */
export const REDIS_UNAVAILABLE = 'GATEHOUSE_REDIS_UNAVAILABLE'
/** 503 {@link REDIS_UNAVAILABLE}, `Retry-After: 5`; its message is written for the caller. */
export const GATEHOUSE_REDIS_UNAVAILABLE = createCodedError<typeof REDIS_UNAVAILABLE>(
  REDIS_UNAVAILABLE, 'Redis unavailable: try again shortly', 503, { expose: true, headers: { 'retry-after': '5' } })

/**
 * The error a store call rejects with when Redis does not answer in time or
 * refuses: a 503 whose message names no key (the cause keeps ioredis's error).
 * D-REDIS-04: a 503 with Retry-After, so a failing lockout check says why.
 */
export function redisUnavailable (cause: unknown): CodedError {
  return new GATEHOUSE_REDIS_UNAVAILABLE({ cause })
}
