import { GATEHOUSE_AUTH_INVALID_CONFIG } from '../errors.js'

/** The limits of a file store (options of `FileUserStore.open` and `FileApiKeyStore.open`). */
export interface StoreLimitOptions {
  /**
   * Most records (users, or keys) the store holds; adding one more is
   * refused with `GATEHOUSE_AUTH_STORE_FULL` (507) before anything is
   * written. Default: 250000.
   */
  maxRecords?: number
  /**
   * The store file never grows past this many bytes. A new record is
   * refused (`GATEHOUSE_AUTH_STORE_FULL`) when the live records would then
   * take more than half of it: the other half is room for the journal's
   * changes between compactions, so changing and deleting records keep
   * working in a full store. Default: 268435456 (256 MiB).
   */
  maxFileBytes?: number
}

/** Resolved {@link StoreLimitOptions}. */
export interface StoreLimits {
  readonly maxRecords: number
  readonly maxFileBytes: number
}

// D-AUTH-25: 100 000 users take about 24 MB, 100 000 keys about 27 MB (compact lines);
// the defaults hold two and a half times that count, and live records up to 128 MiB.
export const defaultStoreLimits: StoreLimits = Object.freeze({ maxRecords: 250_000, maxFileBytes: 256 * 1024 * 1024 })

const MIN_FILE_BYTES = 4096
const MAX_FILE_BYTES = 2 ** 40

/** Refuses option keys `owner` does not take (a typo must not fall back to a default unseen). */
export function checkKnownOptions (owner: string, options: object, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null) throw new GATEHOUSE_AUTH_INVALID_CONFIG(owner, 'options must be an object')
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new GATEHOUSE_AUTH_INVALID_CONFIG(`${owner} ${key}`, `unknown option (known: ${known.join(', ')})`)
  }
}

/** Checks an interval option (ms) given to `owner` (a store's name): a number from `min` to `max`, else a boot error naming it. */
export function checkInterval (owner: string, name: string, value: unknown, fallback: number, min = 0, max = 60_000): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !(value >= min && value <= max)) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG(`${owner} ${name}`, `must be ${min}–${max} ms`)
  }
  return value
}

/** Applies the defaults to the limits given to `owner` (a store's name) and checks them: a boot error names the option. */
export function resolveStoreLimits (owner: string, options: StoreLimitOptions): StoreLimits {
  const { maxRecords = defaultStoreLimits.maxRecords, maxFileBytes = defaultStoreLimits.maxFileBytes } = options
  if (typeof maxRecords !== 'number' || !Number.isSafeInteger(maxRecords) || maxRecords < 1) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG(`${owner} maxRecords`, 'must be a positive integer')
  }
  if (typeof maxFileBytes !== 'number' || !Number.isSafeInteger(maxFileBytes) || maxFileBytes < MIN_FILE_BYTES || maxFileBytes > MAX_FILE_BYTES) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG(`${owner} maxFileBytes`, `must be an integer from ${MIN_FILE_BYTES} to ${MAX_FILE_BYTES} (1 TiB)`)
  }
  return Object.freeze({ maxRecords, maxFileBytes })
}
