import type { Server } from 'node:http'
import type { FastifyBaseLogger, FastifyHttpOptions } from 'fastify'
import type { ResolvedServerLimits } from '@fastify-gatehouse/core'

// Node checks request and headers timeouts on a timer (30 s by default),
// so a 1 s timeout could hold a socket for 31 s: the timer runs at a quarter
// of the shortest timeout, at most every second, at least every 25 ms (D-SERVER-12).
function checkingInterval ({ requestTimeout, headersTimeout }: ResolvedServerLimits): number {
  const shortest = Math.min(...[requestTimeout, headersTimeout].filter((ms) => ms > 0))
  return Number.isFinite(shortest) ? Math.min(1000, Math.max(25, Math.floor(shortest / 4))) : 30_000
}

/**
 * The Fastify server options that carry `limits`: Fastify's own
 * (`requestTimeout`, `connectionTimeout` — socket inactivity —,
 * `keepAliveTimeout`, `bodyLimit`, `maxRequestsPerSocket`) and, through
 * `http`, Node's `headersTimeout` and the interval at which Node checks both
 * timeouts (fixed when the server is created).
 */
export function fastifyLimitOptions (limits: ResolvedServerLimits): FastifyHttpOptions<Server> {
  return {
    requestTimeout: limits.requestTimeout,
    connectionTimeout: limits.connectionTimeout,
    keepAliveTimeout: limits.keepAliveTimeout,
    bodyLimit: limits.bodyLimit,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    http: {
      requestTimeout: limits.requestTimeout,
      headersTimeout: limits.headersTimeout,
      connectionsCheckingInterval: checkingInterval(limits)
    }
  }
}

// D-SERVER-12.
const DROP_WARNING_EVERY_MS = 10_000

/**
 * Applies `maxConnections` to the Node server (0: unlimited); a refused
 * connection is logged at `warn`, at most once every 10 s.
 */
export function limitConnections (server: Server, limits: ResolvedServerLimits, log: FastifyBaseLogger): void {
  if (limits.maxConnections === 0) return
  server.maxConnections = limits.maxConnections
  let warned = -Infinity
  server.on('drop', () => {
    const now = Date.now()
    if (now - warned < DROP_WARNING_EVERY_MS) return
    warned = now
    log.warn({ maxConnections: limits.maxConnections }, 'connections refused: maxConnections reached')
  })
}
