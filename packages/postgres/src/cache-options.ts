import type { CacheSettings } from './confirmed-cache.js'
import { GATEHOUSE_POSTGRES_INVALID_OPTIONS } from './errors.js'

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

/** A whole number from `min` to `max`, or the default; otherwise a boot error naming `<store> <name>`. */
export function wholeNumber (store: string, name: string, value: unknown, fallback: number, [min, max]: readonly [number, number]): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(`${store} ${name}`, `expected a whole number from ${min} to ${max}`)
  }
  return value
}

/** Checks the cache options; throws `GATEHOUSE_POSTGRES_INVALID_OPTIONS` naming the option. */
export function resolveCacheOptions (options: PostgresCacheOptions, store: string): CacheSettings {
  const entries = [0, 10_000_000] as const
  const ms = [0, 86_400_000] as const
  return Object.freeze({
    size: wholeNumber(store, 'cacheSize', options.cacheSize, cacheDefaults.cacheSize, entries),
    negativeSize: wholeNumber(store, 'negativeCacheSize', options.negativeCacheSize, cacheDefaults.negativeCacheSize, entries),
    recheckInterval: wholeNumber(store, 'recheckInterval', options.recheckInterval, cacheDefaults.recheckInterval, ms),
    maxStale: wholeNumber(store, 'maxStale', options.maxStale, cacheDefaults.maxStale, ms)
  })
}
