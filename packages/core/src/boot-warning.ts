import { processWide } from './process-wide.js'

/** The `type` of the process warnings Gatehouse emits (`process.on('warning', (w) => w.name === 'GatehouseWarning')`). */
export const WARNING_TYPE = 'GatehouseWarning'

/** The logger a boot warning goes to: an instance's `app.log` (pino, Fastify's silent logger, or yours). */
export interface WarningLogger {
  warn: (obj: object, msg: string) => void
}

// What each process has said already: a warning is about configuration, and
// an app built a hundred times (tests) says the same thing a hundred times.
// Process-wide, so that two copies of core say it once too (process-wide.ts).
const emitted = processWide('core.emittedWarnings.v1', () => new Set<string>())

/**
 * Whether `log` writes `warn` lines: a pino logger whose level admits them,
 * or a logger of yours that names a level other than `silent`. Fastify's
 * default (`logger: false`) has neither, and writes nothing.
 */
function writesWarnings (log: WarningLogger): boolean {
  const { isLevelEnabled, level } = log as { isLevelEnabled?: unknown, level?: unknown }
  if (typeof isLevelEnabled === 'function') return (isLevelEnabled as (level: string) => boolean).call(log, 'warn')
  return typeof level === 'string' && level !== 'silent'
}

/**
 * Says a warning found while the app boots (a setting that works, but not
 * as its author probably meant): to `log` at `warn`, with `code`; and, when
 * that logger writes no warnings (Fastify's default `logger: false`, level
 * `silent`, `error` or `fatal`), as a process warning too:
 * `process.emitWarning(message, { type: 'GatehouseWarning', code })`, which
 * Node prints on stderr (`--no-warnings` silences it) and hands to
 * `process.on('warning')`. Once per process for the same code and message.
 * D-LOGGING-11.
 */
export function bootWarning (log: WarningLogger, code: string, message: string): void {
  log.warn({ code }, message)
  if (writesWarnings(log)) return
  const key = `${code}\n${message}`
  if (emitted.has(key)) return
  emitted.add(key)
  process.emitWarning(message, { type: WARNING_TYPE, code })
}
