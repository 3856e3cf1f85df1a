import type { FastifyInstance } from 'fastify'

/**
 * Parses `application/x-www-form-urlencoded` bodies (the login form without
 * JavaScript) into an object of strings, on this encapsulated instance only.
 */
export function acceptFormBodies (app: FastifyInstance): void {
  if (app.hasContentTypeParser('application/x-www-form-urlencoded')) return
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
}

/** Whether the request is a form post from a browser that wants an HTML answer (no JavaScript). */
export function isBrowserForm (headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  const type = String(headers['content-type'] ?? '')
  return type.startsWith('application/x-www-form-urlencoded') && String(headers.accept ?? '').includes('text/html')
}
