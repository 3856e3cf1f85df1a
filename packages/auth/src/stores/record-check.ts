import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

/**
 * A check of one record against `schema`, compiled once: the problem as
 * `<JSON pointer>: <message>` (the pointer empty for the record itself),
 * or undefined. Stores check each record they read or write with it, never
 * a whole document (D-AUTH-23: a change costs O(changed records)).
 */
export function recordCheck (schema: TSchema): (value: unknown) => string | undefined {
  const compiled = TypeCompiler.Compile(schema)
  return (value) => {
    if (compiled.Check(value)) return undefined
    const error = compiled.Errors(value).First()!
    return `${error.path}: ${error.message.toLowerCase()}`
  }
}
