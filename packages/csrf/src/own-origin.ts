import type { FastifyRequest } from 'fastify'

const DEFAULT_PORT: Readonly<Record<string, string>> = { http: ':80', https: ':443' }

/**
 * The request's own origin as a browser would serialise it, from Fastify's
 * `request.protocol` and `request.host`: X-Forwarded-Proto/-Host count only
 * when the server was built with `trustProxy`.
 * D-CSRF-02: forwarded headers count only with Fastify's trustProxy.
 */
export function ownOrigin (request: FastifyRequest): string {
  const protocol = request.protocol
  let host = request.host.toLowerCase()
  const port = DEFAULT_PORT[protocol]
  if (port !== undefined && host.endsWith(port)) host = host.slice(0, -port.length)
  return `${protocol}://${host}`
}
