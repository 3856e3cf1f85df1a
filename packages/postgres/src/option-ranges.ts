import { GATEHOUSE_POSTGRES_INVALID_OPTIONS } from './errors.js'

/**
 * The whole-number options of the PostgreSQL stores and their pools, and
 * the range each takes: the stores check against this one table, and so do
 * AppServer's `database` and the config file's `{ postgres: … }` before
 * anything opens (D-SERVER-48, D-CLI-17).
 */
export const OPTION_RANGES = Object.freeze({
  connectTimeout: [1, 3_600_000],
  statementTimeout: [1, 3_600_000],
  poolSize: [1, 1000],
  cacheSize: [0, 10_000_000],
  negativeCacheSize: [0, 10_000_000],
  recheckInterval: [0, 86_400_000],
  maxStale: [0, 86_400_000],
  sweepInterval: [0, 86_400_000],
  sweepBatch: [1, 100_000],
  lastUsedFlushInterval: [1, 86_400_000]
} as const)

/** The name of a whole-number option of the PostgreSQL stores. */
export type NumericOption = keyof typeof OPTION_RANGES

/** What is wrong with `value` for the option `key` (`expected a whole number from … to …`); undefined when it is good. */
export function optionProblem (key: NumericOption, value: unknown): string | undefined {
  const [min, max] = OPTION_RANGES[key]
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return undefined
  return `expected a whole number from ${min} to ${max}`
}

/** `value`, or `fallback` when undefined; otherwise a boot error naming `<store> <key>`. */
export function wholeOption (store: string, key: NumericOption, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  const problem = optionProblem(key, value)
  if (problem !== undefined) throw new GATEHOUSE_POSTGRES_INVALID_OPTIONS(`${store} ${key}`, problem)
  return value as number
}
