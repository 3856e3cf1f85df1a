import type { FastifyRequest } from 'fastify'
import { isThenable } from '@fastify-gatehouse/core'
import { BoundedCache } from './bounded-cache.js'
import { settleWithin } from './settle-within.js'

/**
 * A verifier's `isRevoked` option: whether a verified token is revoked
 * (a deny list by `jti`, a user signed out everywhere since `iat`…). Its
 * claims are verified and frozen (`avatar.claims`); `request` is the Fastify
 * request (undefined from `AuthCore` called directly). Only `true` and
 * `false` are answers.
 */
export type JwtRevocationCheck = (
  claims: Readonly<Record<string, unknown>>,
  request: FastifyRequest | undefined
) => boolean | PromiseLike<boolean>

/** What the check says of one token. */
export type Revocation = 'revoked' | 'valid' | { readonly unavailable: true, readonly cause: unknown }

/**
 * A verifier's `isRevoked` hook, with its "revoked" answers remembered: a
 * token once found revoked stays refused until it expires (or leaves this
 * bounded list), and the hook is not asked about it again. A "not revoked"
 * answer is not kept here: it lives as long as the cached avatar (the
 * verifier's `cacheTtl`, at most `jwtCache.ttl`, never past `exp`), after
 * which the hook is asked again. Concurrent first requests with one token
 * share one call.
 * D-AUTH-52.
 */
export class RevocationCheck {
  readonly #isRevoked: JwtRevocationCheck
  readonly #revoked: BoundedCache<true>
  readonly #pending = new Map<string, Promise<Revocation>>()
  readonly #timeoutMs: number

  constructor (isRevoked: JwtRevocationCheck, max: number, timeoutMs: number) {
    this.#isRevoked = isRevoked
    this.#timeoutMs = timeoutMs
    this.#revoked = new BoundedCache(max)
  }

  /**
   * Asks about the token whose signing input is `key` (header and payload:
   * one set of claims, however often signed), valid until `until` (ms).
   * Never throws or rejects.
   */
  check (key: string, claims: Readonly<Record<string, unknown>>, until: number, now: number, request: FastifyRequest | undefined): Revocation | Promise<Revocation> {
    if (this.#revoked.get(key, now) !== undefined) return 'revoked'
    const pending = this.#pending.get(key)
    if (pending !== undefined) return pending
    let answer: boolean | PromiseLike<boolean>
    try {
      answer = this.#isRevoked(claims, request)
    } catch (err) {
      return { unavailable: true, cause: err }
    }
    if (!isThenable(answer)) return this.#settle(key, answer, until)
    const asked = settleWithin(Promise.resolve(answer), this.#timeoutMs, 'isRevoked').then(
      (value) => this.#settle(key, value, until),
      (err: unknown) => ({ unavailable: true as const, cause: err })
    ).finally(() => this.#pending.delete(key))
    this.#pending.set(key, asked)
    return asked
  }

  #settle (key: string, answer: unknown, until: number): Revocation {
    if (answer === false) return 'valid'
    if (answer === true) {
      this.#revoked.set(key, true, until)
      return 'revoked'
    }
    return { unavailable: true, cause: new TypeError(`isRevoked answered ${typeof answer}, not true or false`) }
  }
}
