import { createHash } from 'node:crypto'
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
  /**
   * The hash of `etag: 'content'` ETags: `'fnv1a'` (32-bit, fast, not
   * cryptographic; @fastify/etag's) or any hash `node:crypto` knows
   * (`crypto.getHashes()`: `'sha1'`, `'md5'`, `'sha256'` …). Only with
   * `etag: 'content'`. Default: `'sha1'`.
   * D-CACHE-08.
   */
  etagAlgorithm?: string
  /**
   * Mark the ETags this component makes (content and file) weak (`W/"…"`).
   * A weak tag never satisfies `If-Match` or an `If-Range` tag (both use the
   * strong comparison). Route-set ETags are left as they are. Default: `false`.
   * D-CACHE-09.
   */
  weakEtags?: boolean
  /**
   * Serve one byte range of a file response (`Range: bytes=…` on GET → 206,
   * `If-Range` honoured) and send `Accept-Ranges: bytes`. Default: `true`.
   * D-CACHE-11, D-CACHE-12.
   */
  acceptRanges?: boolean
}

/** {@link CacheOptions} with every default applied. */
export interface ResolvedCacheOptions {
  readonly maxAge: number
  readonly public: boolean
  readonly immutable: boolean
  readonly etag: EtagMode
  readonly etagAlgorithm: string
  readonly weakEtags: boolean
  readonly acceptRanges: boolean
}

export const defaults: ResolvedCacheOptions = Object.freeze({
  maxAge: 3600,
  public: true,
  immutable: false,
  etag: 'file',
  etagAlgorithm: 'sha1',
  weakEtags: false,
  acceptRanges: true
})

export const cacheOptionsSchema = Type.Object({
  // RFC 9111 §1.2.2: caches treat any larger delta-seconds as 2^31.
  maxAge: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_648 })),
  public: Type.Optional(Type.Boolean()),
  immutable: Type.Optional(Type.Boolean()),
  etag: Type.Optional(Type.Union([Type.Literal('file'), Type.Literal('content')])),
  // Checked against node:crypto at registration (resolveCacheOptions).
  etagAlgorithm: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  weakEtags: Type.Optional(Type.Boolean()),
  acceptRanges: Type.Optional(Type.Boolean())
}, { additionalProperties: false })

/** Whether `node:crypto` can make a hash of that name (as @fastify/etag checks it). */
function knownHash (name: string): boolean {
  try {
    createHash(name)
    return true
  } catch {
    return false
  }
}

/**
 * Applies the defaults and checks what the schema cannot (`immutable`
 * against `maxAge`, `etagAlgorithm` against `etag` and node:crypto).
 */
export function resolveCacheOptions (options: CacheOptions): ResolvedCacheOptions {
  const resolved = Object.freeze({ ...defaults, ...options })
  // D-CONFIG-04: only cross-value checks have package codes.
  if (resolved.immutable && resolved.maxAge === 0) {
    throw new GATEHOUSE_CACHE_INVALID_OPTIONS('immutable', 'needs maxAge > 0 (an immutable response that is already stale is a contradiction)')
  }
  // D-CACHE-08: an option that would change nothing is refused, not ignored.
  if (options.etagAlgorithm !== undefined && resolved.etag !== 'content') {
    throw new GATEHOUSE_CACHE_INVALID_OPTIONS('etagAlgorithm', "only applies with etag: 'content' (file ETags are not hashes)")
  }
  if (resolved.etagAlgorithm !== 'fnv1a' && !knownHash(resolved.etagAlgorithm)) {
    throw new GATEHOUSE_CACHE_INVALID_OPTIONS('etagAlgorithm', `${JSON.stringify(resolved.etagAlgorithm)} is neither 'fnv1a' nor a hash node:crypto knows (crypto.getHashes())`)
  }
  return resolved
}
