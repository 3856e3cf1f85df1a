import { createPublicKey, KeyObject, type JsonWebKey, type webcrypto } from 'node:crypto'
import { isUint8Array } from 'node:util/types'
import type { FastifyRequest } from 'fastify'
import type { JWK } from 'jose'
import { isThenable, LruMap } from '@fastify-gatehouse/core'
import { keyProblem, MALFORMED_PAYLOAD, type DecodedJws } from './jws.js'
import { settleWithin } from './settle-within.js'

/**
 * What a key resolver may answer: an HS* secret (string, bytes or a secret
 * `KeyObject`), a public key (PEM string or bytes, JWK, `KeyObject`,
 * `CryptoKey`), or null/undefined for "no key for this token".
 */
export type JwtKey = string | Uint8Array | KeyObject | webcrypto.CryptoKey | JWK

/**
 * A verifier's `key` option: the key for one token, chosen from its header
 * (`kid`, `jku` you trust, …) and its claims (`iss`, a tenant), which are
 * **not verified yet**: use them to choose a key, never to trust the
 * caller. `request` is the Fastify request (undefined from `AuthCore`
 * called directly). The verifier's algorithm stays pinned: the key must fit it.
 */
export type JwtKeyResolver = (
  header: Readonly<Record<string, unknown>>,
  claims: Readonly<Record<string, unknown>>,
  request: FastifyRequest | undefined
) => JwtKey | null | undefined | PromiseLike<JwtKey | null | undefined>

/** A key ready for `signatureValid`, or why there is none. */
export type ResolvedKey = KeyObject | Buffer | { readonly detail: string, readonly unavailable?: true, readonly cause?: unknown }

// D-AUTH-04: RFC 7518 §3.2.
const MIN_SECRET_BYTES: Record<string, number> = { HS256: 32, HS384: 48, HS512: 64 }
/** Imported keys kept per verifier, by the string the resolver returned. */
export const IMPORTED_KEYS_MAX = 1000

const NO_KEY = Object.freeze({ detail: 'No key matches the token' })

/**
 * A verifier's `key` function with its imports cached: keys given as
 * strings (PEM, secrets) in a bounded LRU map, objects (JWK, bytes,
 * `KeyObject`, `CryptoKey`) in a WeakMap, so a resolver that answers the
 * same value twice imports it once. Answers never throw: a resolver that
 * throws, rejects, takes over `callbackTimeout` (5 s) or gives a key that does not fit the
 * pinned algorithm is `unavailable` (a 503: the caller's token may be fine;
 * the reason goes to the log as the error's cause, never the key).
 * D-AUTH-51.
 */
export class KeyResolver {
  readonly #resolve: JwtKeyResolver
  readonly #algorithm: string
  readonly #timeoutMs: number
  readonly #byString = new LruMap<string, ResolvedKey>(IMPORTED_KEYS_MAX)
  readonly #byObject = new WeakMap<object, ResolvedKey>()

  constructor (resolve: JwtKeyResolver, algorithm: string, timeoutMs: number) {
    this.#resolve = resolve
    this.#algorithm = algorithm
    this.#timeoutMs = timeoutMs
  }

  /** The key for `jws`, synchronously when the resolver answers synchronously. */
  key (jws: DecodedJws, request: FastifyRequest | undefined): ResolvedKey | Promise<ResolvedKey> {
    const claims = jws.claims
    if (claims === MALFORMED_PAYLOAD) return { detail: 'The token is malformed' }
    if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return { detail: 'The token claims are invalid' }
    let answer: ReturnType<JwtKeyResolver>
    try {
      answer = this.#resolve(jws.header, claims as Record<string, unknown>, request)
    } catch (err) {
      return { detail: 'The key resolver failed', unavailable: true, cause: err }
    }
    if (!isThenable(answer)) return this.#imported(answer)
    return settleWithin(Promise.resolve(answer), this.#timeoutMs, 'the key resolver').then(
      (key) => this.#imported(key),
      (err: unknown) => ({ detail: 'The key resolver failed', unavailable: true as const, cause: err })
    )
  }

  #imported (key: unknown): ResolvedKey {
    if (key === null || key === undefined) return NO_KEY
    if (typeof key === 'string') {
      let found = this.#byString.get(key)
      if (found === undefined) {
        found = this.#import(key)
        this.#byString.set(key, found)
      }
      return found
    }
    if (typeof key !== 'object') return this.#unusable('not a key')
    let found = this.#byObject.get(key)
    if (found === undefined) {
      found = this.#import(key)
      this.#byObject.set(key, found)
    }
    return found
  }

  #unusable (problem: string): ResolvedKey {
    return { detail: 'The key for the token is unusable', unavailable: true, cause: new TypeError(`key resolver: ${problem}`) }
  }

  #import (key: string | object): ResolvedKey {
    const algorithm = this.#algorithm
    const symmetric = algorithm.startsWith('HS')
    let imported: KeyObject | Buffer
    try {
      if (symmetric) {
        imported = secretBytes(key, algorithm)
        if (imported.byteLength < MIN_SECRET_BYTES[algorithm]!) return this.#unusable(`an ${algorithm} secret must be at least ${MIN_SECRET_BYTES[algorithm]!} bytes`)
      } else {
        imported = publicKey(key, algorithm)
      }
    } catch (err) {
      return this.#unusable(`${algorithm}: ${(err as Error).message}`)
    }
    const problem = keyProblem(algorithm, imported)
    return problem === undefined ? imported : this.#unusable(problem)
  }
}

function isJwk (key: object): key is JWK {
  return !(key instanceof KeyObject) && !isUint8Array(key) && typeof (key as { kty?: unknown }).kty === 'string'
}

function checkJwkAlg (jwk: JWK, algorithm: string): void {
  if (jwk.alg !== undefined && jwk.alg !== algorithm) throw new TypeError(`the JWK is for ${String(jwk.alg)}`)
  if (jwk.use !== undefined && jwk.use !== 'sig') throw new TypeError('the JWK is not a signing key (use)')
}

function secretBytes (key: string | object, algorithm: string): Buffer {
  if (typeof key === 'string') return Buffer.from(key, 'utf8')
  if (isUint8Array(key)) return Buffer.from(key)
  if (isJwk(key)) {
    if (key.kty !== 'oct' || typeof key.k !== 'string') throw new TypeError('needs a secret (a JWK of kty "oct")')
    checkJwkAlg(key, algorithm)
    return Buffer.from(key.k, 'base64url')
  }
  const keyObject = key instanceof KeyObject ? key : KeyObject.from(key as webcrypto.CryptoKey)
  if (keyObject.type !== 'secret') throw new TypeError('needs a secret')
  return keyObject.export()
}

function publicKey (key: string | object, algorithm: string): KeyObject {
  if (typeof key === 'string' || isUint8Array(key)) return createPublicKey({ key: Buffer.from(key), format: 'pem' })
  if (isJwk(key)) {
    checkJwkAlg(key, algorithm)
    return createPublicKey({ key: key as JsonWebKey, format: 'jwk' })
  }
  const keyObject = key instanceof KeyObject ? key : KeyObject.from(key as webcrypto.CryptoKey)
  // A private key would verify too; a resolver handing them out is a bug worth refusing.
  if (keyObject.type !== 'public') throw new TypeError('needs a public key')
  return keyObject
}
