import { Type } from '@sinclair/typebox'
import { GATEHOUSE_CACHE_INVALID_OPTIONS } from './errors.js'

/** Where ETags come from. */
export type EtagMode = 'file' | 'content'

/** Options of the cache component; every key is optional. */
export interface CacheOptions {
  /** `max-age` of file responses, in seconds. Default: 3600. */
  maxAge?: number
  /**
   * `public` in the Cache-Control of file responses (shared caches may
   * store them); `false` sends `private`. Responses to an authenticated
   * caller (`request.scope.auth` set) are always `private`. Default: `true`.
   * D-CACHE-03.
   */
  public?: boolean
  /** Add `immutable` to the Cache-Control of file responses. Needs `maxAge` > 0. Default: `false`. */
  immutable?: boolean
  /**
   * `'file'`: ETags for file responses only (mtime and size). `'content'`:
   * also a hash of the body (via @fastify/etag) for other 200 GET/HEAD
   * responses sent as a string or Buffer. Default: `'file'`.
   */
  etag?: EtagMode
}

/** {@link CacheOptions} with every default applied. */
export interface ResolvedCacheOptions {
  readonly maxAge: number
  readonly public: boolean
  readonly immutable: boolean
  readonly etag: EtagMode
}

export const defaults: ResolvedCacheOptions = Object.freeze({
  maxAge: 3600,
  public: true,
  immutable: false,
  etag: 'file'
})

export const cacheOptionsSchema = Type.Object({
  // RFC 9111 §1.2.2: caches treat any larger delta-seconds as 2^31.
  maxAge: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_648 })),
  public: Type.Optional(Type.Boolean()),
  immutable: Type.Optional(Type.Boolean()),
  etag: Type.Optional(Type.Union([Type.Literal('file'), Type.Literal('content')]))
}, { additionalProperties: false })

/** Applies the defaults and checks what the schema cannot (`immutable` against `maxAge`). */
export function resolveCacheOptions (options: CacheOptions): ResolvedCacheOptions {
  const resolved = Object.freeze({ ...defaults, ...options })
  // D-CONFIG-04: only cross-value checks have package codes.
  if (resolved.immutable && resolved.maxAge === 0) {
    throw new GATEHOUSE_CACHE_INVALID_OPTIONS('immutable', 'needs maxAge > 0 (an immutable response that is already stale is a contradiction)')
  }
  return resolved
}
