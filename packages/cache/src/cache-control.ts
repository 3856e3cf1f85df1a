import type { ResolvedCacheOptions } from './options.js'

/** The Cache-Control value of a file response, built once at registration. */
export function cacheControlValue (options: ResolvedCacheOptions, visibility: 'public' | 'private'): string {
  return `${visibility}, max-age=${options.maxAge}${options.immutable ? ', immutable' : ''}`
}
