import type { CacheSettings } from './confirmed-cache.js'
import { wholeOption } from './option-ranges.js'

/** The cache options of {@link PostgresUserStore} and {@link PostgresApiKeyStore}; every key is optional. */
export interface PostgresCacheOptions {
  /** Users (or keys) with a row kept in memory, at most. Default: 10 000; 0 caches none. */
  cacheSize?: number
  /** Names with no row (unknown identities, unknown or garbage key ids) kept, at most, apart from the others. Default: 1000. */
  negativeCacheSize?: number
  /**
   * ms an entry is served without a query while the change listener vouches
   * for it (a notification drops it at once). Without the listener, an entry
   * is trusted 1 s from its fetch. Default: 30 000.
   */
  recheckInterval?: number
  /**
   * ms after its last confirmation a cached entry is still served while the
   * database is away; uncached lookups and writes fail with 503 at once.
   * 0 serves nothing stale. Default: 60 000.
   */
  maxStale?: number
}

export const cacheDefaults = Object.freeze({ cacheSize: 10_000, negativeCacheSize: 1000, recheckInterval: 30_000, maxStale: 60_000 })

/** The option names of {@link PostgresCacheOptions}, for the unknown-key check. */
export const CACHE_OPTION_KEYS: readonly string[] = Object.freeze(Object.keys(cacheDefaults))

/** Checks the cache options; throws `GATEHOUSE_POSTGRES_INVALID_OPTIONS` naming the option. */
export function resolveCacheOptions (options: PostgresCacheOptions, store: string): CacheSettings {
  return Object.freeze({
    size: wholeOption(store, 'cacheSize', options.cacheSize, cacheDefaults.cacheSize),
    negativeSize: wholeOption(store, 'negativeCacheSize', options.negativeCacheSize, cacheDefaults.negativeCacheSize),
    recheckInterval: wholeOption(store, 'recheckInterval', options.recheckInterval, cacheDefaults.recheckInterval),
    maxStale: wholeOption(store, 'maxStale', options.maxStale, cacheDefaults.maxStale)
  })
}
