import { Kind, Type, TypeRegistry } from '@sinclair/typebox'

/**
 * A string option whose check counts itself: every schema check of options
 * holding it (TypeBox's `Value.Errors`, which core's validateOptions runs)
 * calls the registered kind once. D-CHAIN-12 is proven by the count.
 */
export function countedString (kind: string): { schema: ReturnType<typeof Type.Unsafe<string>>, checks: () => number } {
  let checks = 0
  TypeRegistry.Set(kind, (_schema, value) => {
    checks++
    return typeof value === 'string' && value !== 'bad'
  })
  return { schema: Type.Unsafe<string>({ [Kind]: kind }), checks: () => checks }
}
