import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import { redactQuery } from '@fastify-gatehouse/core'

/**
 * What Fastify's default `req` serializer reads (method, url, host, ip,
 * socket), with the URL redacted: API keys, JWTs and secret-named query
 * parameters masked (`redactQuery`). Headers are left out on purpose.
 */
function redactedRequest (request: FastifyRequest): Record<string, unknown> {
  return { method: request.method, url: redactQuery(request.url), headers: {}, host: request.host, ip: request.ip, socket: request.socket }
}

/**
 * Fastify's own request log lines ("incoming request", the 404 line, the
 * 5xx line of its default error handler) log the URL as sent, query
 * included: `?access_token=…` or an OIDC callback's `code` would reach the
 * log at `info`. This controller writes the same lines with the URL
 * redacted. AppServer installs it; give it to your own app as Fastify's
 * `logController` option.
 * D-LOGGING-09 (amends D-LOGGING-02): a `req` serializer cannot be set on a logger the caller owns.
 */
export class RedactingLogController extends LogController {
  override incomingRequest (request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (this.isLogDisabled(request)) return
    request.log.info({ req: redactedRequest(request) }, 'incoming request')
  }

  override defaultErrorLog (error: Error, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (this.isLogDisabled(request)) return
    if (reply.statusCode >= 500) reply.log.error({ req: redactedRequest(request), res: reply, err: error }, error?.message)
    else reply.log.info({ res: reply, err: error }, error?.message)
  }

  override routeNotFound (request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (this.isLogDisabled(request)) return
    request.log.info(`Route ${request.raw.method ?? ''}:${redactQuery(request.raw.url ?? '')} not found`)
  }

  override writeHeadError (error: Error, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (this.isLogDisabled(request)) return
    reply.log.warn({ req: redactedRequest(request), res: reply, err: error }, error?.message)
  }
}
