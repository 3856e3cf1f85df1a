import type { FastifyBaseLogger, FastifyPluginAsync, FastifyRequest } from 'fastify'
import { pathWithoutQuery, redactHeaders, redactPath, redactQuery, redactText, safeString } from '@fastify-gatehouse/core'
import { resolveLoggingOptions, type LoggingOptions } from './options.js'

// pino's numeric levels; the logger's level is read per request because
// pino lets it change at run time.
const LEVEL_VALUES: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity }

function enabled (log: FastifyBaseLogger, level: string): boolean {
  const threshold = LEVEL_VALUES[log.level]
  // An unknown (custom) level: let the logger decide.
  return threshold === undefined || (LEVEL_VALUES[level] ?? 0) >= threshold
}

/**
 * The logging component's plugin: the access lines, in `onRequest`,
 * `onError` and `onResponse` hooks.
 */
export const logging: FastifyPluginAsync<LoggingOptions> = async function logging (app, options) {
  const { level, loggerName, includeQuery, includeHeaders } = resolveLoggingOptions(options)
  const log = app.log.child({ name: loggerName })
  const target = includeQuery ? (request: FastifyRequest) => redactQuery(request.url) : (request: FastifyRequest) => redactPath(pathWithoutQuery(request.url))
  // The error that ended a request, from onError to onResponse.
  const failures = new WeakMap<FastifyRequest, unknown>()

  app.addHook('onRequest', function accessIn (request, _reply, done) {
    if (enabled(log, level)) {
      log[level]({ reqId: request.id }, `<- ${request.method} ${target(request)} from ${request.ip}`)
    }
    // D-LOGGING-04: headers are separate `debug` lines; the logger's level alone decides.
    if (includeHeaders && enabled(log, 'debug')) {
      log.debug({ reqId: request.id, headers: redactHeaders(request.headers) }, `<- ${request.method} ${target(request)} headers`)
    }
    done()
  })

  app.addHook('onError', function accessError (request, _reply, error, done) {
    failures.set(request, error)
    done()
  })

  app.addHook('onResponse', function accessOut (request, reply, done) {
    const elapsed = reply.elapsedTime.toFixed(1)
    const failure = failures.get(request)
    // D-LOGGING-03: the ERROR line is for failures that end ≥ 500, at `error` whatever `level` is.
    if (failure !== undefined && reply.statusCode >= 500) {
      const message = failure instanceof Error ? safeString(failure.message) : safeString(failure)
      log.error({ reqId: request.id, statusCode: reply.statusCode }, `-> ${request.method} ${target(request)} ERROR: ${redactText(message)} (${elapsed}ms)`)
    } else if (enabled(log, level)) {
      log[level]({ reqId: request.id, statusCode: reply.statusCode }, `-> ${request.method} ${target(request)} ${reply.statusCode} (${elapsed}ms)`)
    }
    if (includeHeaders && enabled(log, 'debug')) {
      log.debug({ reqId: request.id, headers: redactHeaders(reply.getHeaders()) }, `-> ${request.method} ${target(request)} headers`)
    }
    done()
  })
}
