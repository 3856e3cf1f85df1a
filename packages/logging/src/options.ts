import { Type } from '@sinclair/typebox'

/** Levels the access lines can be written at. */
export type AccessLogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error'

/** Options of the logging component; every key is optional. */
export interface LoggingOptions {
  /** Level of the `<-` and `->` lines (ERROR lines are always `error`). Default: `info`. */
  level?: AccessLogLevel
  /** `name` of the child logger the lines are written with. Default: `service.access`. */
  loggerName?: string
  /** Log the query string, with secret-looking values redacted. Default: `false`. */
  includeQuery?: boolean
  /** Log request and response headers, redacted, at `debug` only. Default: `false`. */
  includeHeaders?: boolean
}

/** {@link LoggingOptions} with every default applied. */
export interface ResolvedLoggingOptions {
  readonly level: AccessLogLevel
  readonly loggerName: string
  readonly includeQuery: boolean
  readonly includeHeaders: boolean
}

export const defaults: ResolvedLoggingOptions = Object.freeze({
  level: 'info',
  loggerName: 'service.access',
  includeQuery: false,
  includeHeaders: false
})

export const loggingOptionsSchema = Type.Object({
  level: Type.Optional(Type.Union(['trace', 'debug', 'info', 'warn', 'error'].map((l) => Type.Literal(l)))),
  loggerName: Type.Optional(Type.String({ minLength: 1 })),
  includeQuery: Type.Optional(Type.Boolean()),
  includeHeaders: Type.Optional(Type.Boolean())
}, { additionalProperties: false })

/** Applies the defaults; the schema has checked every key (no option depends on another). */
export function resolveLoggingOptions (options: LoggingOptions): ResolvedLoggingOptions {
  return Object.freeze({ ...defaults, ...options })
}
