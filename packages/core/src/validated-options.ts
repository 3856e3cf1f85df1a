import type { TSchema } from '@sinclair/typebox'
import { isPlainObject } from './plain-object.js'
import { processWide } from './process-wide.js'
import { joinPath, validateOptions } from './validate.js'

// D-CHAIN-12: component options are checked against their schema once. The
// first step that checks them (the config-file loader, resolveRecipe, or the
// component registered alone) checks a frozen copy and records it here with
// the schema it passed; later steps hand that copy on unchecked. Kept
// process-wide so that two copies of core agree (process-wide.ts), and keyed by the
// schema, so options checked for one component are not taken as another's.
// A step that also resolves what it checked (a recipe into its chain steps,
// a config file's server section into its limits) records the result beside
// what it was checked against, so the next step takes the result instead of
// resolving again (issue 26, D-CONFIG-17).
const validated = processWide('core.validatedOptions.v1', () => new WeakMap<object, TSchema | Resolution>())

/** What a checked object resolved to, and what it was checked against (a schema, a components list). */
interface Resolution {
  readonly against: object
  readonly resolved: unknown
}

const isResolution = (entry: TSchema | Resolution | undefined): entry is Resolution =>
  entry !== undefined && Object.hasOwn(entry, 'resolved') && Object.hasOwn(entry, 'against')

function checkedAgainst (value: unknown): object | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const entry = validated.get(value)
  return isResolution(entry) ? entry.against : entry
}

/** Whether `options` is a copy already checked against `schema`. */
export function isValidatedFor (options: unknown, schema: TSchema): boolean {
  return checkedAgainst(options) === schema
}

/**
 * Records that `input`, a frozen object, was checked against `against` (a
 * schema, a components list) and resolved to `resolved`: {@link resolvedFor}
 * hands the result on, and it counts as checked against a schema.
 */
export function recordResolved (input: object, against: object, resolved: unknown): void {
  validated.set(input, { against, resolved })
}

/** What `input` resolved to when it was checked against `against`; undefined if it was not. */
export function resolvedFor (input: unknown, against: object): unknown {
  if (typeof input !== 'object' || input === null) return undefined
  const entry = validated.get(input)
  return isResolution(entry) && entry.against === against ? entry.resolved : undefined
}

/**
 * Checks `options`, a frozen copy the caller made, against `schema` (as
 * {@link validateOptions} does) and records that it passed.
 */
export function checkOnce<T extends Readonly<Record<string, unknown>>> (
  schema: TSchema,
  options: T,
  label: string,
  display?: ReadonlyMap<string, string>
): T {
  validateOptions(schema, options, label, display)
  validated.set(options, schema)
  return options
}

/** A frozen shallow copy: what resolveRecipe checks for options given in TypeScript. */
export function shallowFrozen (options: Record<string, unknown>): Readonly<Record<string, unknown>> {
  return Object.freeze({ ...options })
}

/**
 * A deeply frozen copy of plain data (plain objects and arrays); other values
 * (functions, class instances) are kept as they are. What the loader checks:
 * a config file holds only data, so nothing in it can change after the check.
 */
export function frozenData<T> (value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenData)) as T
  if (!isPlainObject(value)) return value
  const copy: Record<string, unknown> = {}
  // defineProperty, so that a `__proto__` key stays an ordinary key.
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, key, { value: frozenData(item), enumerable: true, writable: true, configurable: true })
  }
  return Object.freeze(copy) as T
}

/**
 * `options` with the keys of `extra` set, for code that adds to options it
 * was handed (a server adding a store it opened, or a callback). When
 * `options` were already checked for a component, only the added values
 * are checked, against their keys' schemas, and the result counts as
 * checked; so a config file's section is still checked once. Otherwise
 * (options not checked yet, or a key the schema does not name) the result
 * is a plain merged object, checked in full by the chain or component it
 * goes to. `label` is the path of `options`, for messages
 * (`middleware.session`).
 */
export function extendOptions (
  options: Readonly<Record<string, unknown>>,
  extra: Readonly<Record<string, unknown>>,
  label: string
): Record<string, unknown> {
  const schema = checkedAgainst(options) as TSchema | undefined
  const properties = schema?.properties as Record<string, TSchema> | undefined
  if (properties === undefined || !Object.keys(extra).every((key) => Object.hasOwn(properties, key))) {
    return { ...options, ...extra }
  }
  for (const [key, value] of Object.entries(extra)) validateOptions(properties[key]!, value, joinPath(label, key))
  const result = Object.freeze({ ...options, ...extra })
  validated.set(result, schema!)
  return result
}
