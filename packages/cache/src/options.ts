import { Type } from '@sinclair/typebox'

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
export type ResolvedCacheOptions = Required<CacheOptions>

export const defaults: Readonly<ResolvedCacheOptions> = Object.freeze({
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

export function resolveCacheOptions (options: CacheOptions): ResolvedCacheOptions {
  return { ...defaults, ...options }
}
