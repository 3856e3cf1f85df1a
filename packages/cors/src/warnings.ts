import type { ResolvedCorsOptions } from './options.js'
import { regexpWarnings } from './regexp-lint.js'

/**
 * Boot warnings about `allowOrigins`, each starting with the option name:
 * `*` with credentials, and (with `regexps`) the likely mistakes of its RegExps.
 */
export function originWarnings (opts: ResolvedCorsOptions, regexps: boolean): string[] {
  const origins = opts.allowOrigins
  if (typeof origins === 'function') return []
  const warnings: string[] = []
  if (opts.allowCredentials && origins.includes('*')) {
    warnings.push('allowOrigins "*" with allowCredentials lets every site read credentialed responses; list the origins')
  }
  if (regexps) {
    for (const item of origins) {
      if (item instanceof RegExp) warnings.push(...regexpWarnings(item).map((w) => `allowOrigins: ${w}`))
    }
  }
  return warnings
}
