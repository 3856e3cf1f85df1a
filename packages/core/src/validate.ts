import type { TSchema } from '@sinclair/typebox'
import { Value, ValueErrorType } from '@sinclair/typebox/value'
import { GATEHOUSE_CORE_INVALID_OPTIONS } from './errors.js'
import { isPlainObject } from './plain-object.js'

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/** Appends `key` to a dotted display path, bracketing keys that are not identifiers. */
export function joinPath (path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`
}

function pointerKeys (pointer: string): string[] {
  if (pointer === '') return []
  return pointer.slice(1).split('/').map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
}

/** JSON pointer of `key` under `pointer`. */
export function childPointer (pointer: string, key: string): string {
  return `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
}

/** `minimumSize` → `minimum_size`: how a config file spells an option. */
export function camelToSnake (key: string): string {
  return key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())
}

function snakeToCamel (key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())
}

/**
 * Checks `value` against `schema` and throws `GATEHOUSE_CORE_INVALID_OPTIONS`
 * naming the first bad key, e.g. `middleware.compression.minimumSize:
 * expected integer`. `label` is the path of `value` itself; `display` maps
 * a JSON pointer to the path the user wrote (config files use snake_case).
 * A schema's `errorMessage` keyword, when it has one, replaces the
 * validator's message (`expected scrypt$N,r,p$salt$hash: make one with …`).
 */
export function validateOptions (
  schema: TSchema,
  value: unknown,
  label: string,
  display?: ReadonlyMap<string, string>
): void {
  const error = Value.Errors(schema, value).First()
  if (error === undefined) return
  const keys = pointerKeys(error.path)
  // A missing key has no display entry; name it as the file would spell it.
  const parent = display?.get(error.path.slice(0, error.path.lastIndexOf('/')))
  const path = display?.get(error.path) ??
    (parent !== undefined ? joinPath(parent, camelToSnake(keys.at(-1) ?? '')) : keys.reduce((p, key) => joinPath(p, key), label))
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const key = pointerKeys(error.path).at(-1) ?? ''
    const hint = display === undefined && key.includes('_') ? ` (options are camelCase: ${snakeToCamel(key)})` : ''
    throw new GATEHOUSE_CORE_INVALID_OPTIONS(path, `unknown option${hint}`)
  }
  if (error.type === ValueErrorType.ObjectRequiredProperty) {
    throw new GATEHOUSE_CORE_INVALID_OPTIONS(path, 'is required')
  }
  // D-CONFIG-11: a schema may say what its value must be, and how to make one (`errorMessage`).
  const custom = (error.schema as { errorMessage?: unknown }).errorMessage
  const message = typeof custom === 'string' ? custom : error.message.charAt(0).toLowerCase() + error.message.slice(1)
  throw new GATEHOUSE_CORE_INVALID_OPTIONS(path, message)
}

/**
 * Renames the snake_case keys of a config-file value to the camelCase keys
 * of `schema`, recursively, and records for every JSON pointer of the result
 * the path as written in the file (for error messages). Keys of maps
 * (`Type.Record`: user names, document names) are kept as written. A key
 * that is not the snake_case form of a schema key is kept as written, so
 * that validation reports it as unknown.
 * D-CONFIG-01: snake_case only in files; map keys (user and document names) kept as written.
 */
export function fromFileKeys (
  schema: TSchema,
  value: unknown,
  pointer: string,
  path: string,
  display: Map<string, string>
): unknown {
  display.set(pointer, path)
  if (Array.isArray(value)) {
    const items = schema.items as TSchema | undefined
    return value.map((item, i) => items === undefined
      ? item
      : fromFileKeys(items, item, childPointer(pointer, String(i)), `${path}[${i}]`, display))
  }
  if (!isPlainObject(value)) return value
  const objectSchema = objectBranch(schema)
  if (objectSchema === undefined) return value
  const properties = (objectSchema.properties ?? {}) as Record<string, TSchema>
  const patterns = Object.values((objectSchema.patternProperties ?? {}) as Record<string, TSchema>)
  const result: Record<string, unknown> = {}
  for (const [fileKey, item] of Object.entries(value)) {
    // D-CONFIG-03: keys are own properties; `constructor` is an ordinary key, `__proto__` is refused.
    if (fileKey === '__proto__') throw new GATEHOUSE_CORE_INVALID_OPTIONS(joinPath(path, fileKey), 'not allowed as a key')
    if (Object.hasOwn(properties, fileKey) && camelToSnake(fileKey) !== fileKey) {
      throw new GATEHOUSE_CORE_INVALID_OPTIONS(joinPath(path, fileKey), `unknown option (config files use snake_case: ${camelToSnake(fileKey)})`)
    }
    const camel = snakeToCamel(fileKey)
    const key = Object.hasOwn(properties, camel) && camelToSnake(camel) === fileKey ? camel : fileKey
    const itemSchema = Object.hasOwn(properties, key) ? properties[key] : patterns[0]
    const itemPointer = childPointer(pointer, key)
    const itemPath = joinPath(path, fileKey)
    result[key] = itemSchema === undefined
      ? (display.set(itemPointer, itemPath), item)
      : fromFileKeys(itemSchema, item, itemPointer, itemPath, display)
  }
  return result
}

// The object-shaped member of a schema: the schema itself, or the object
// member of a union such as `boolean | { …options }`.
function objectBranch (schema: TSchema): TSchema | undefined {
  if (schema.type === 'object') return schema
  const members = (schema.anyOf ?? schema.oneOf) as TSchema[] | undefined
  return members?.find((member) => member.type === 'object')
}
