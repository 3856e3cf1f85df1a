import type { FastifyInstance } from 'fastify'
import { duplicateField, formNotAccepted } from '../errors.js'

/**
 * Parses `application/x-www-form-urlencoded` bodies (the login form without
 * JavaScript) into an object of strings, on this encapsulated instance only.
 * A field given twice is refused (400 `GATEHOUSE_SERVER_DUPLICATE_FIELD`):
 * one of its values would otherwise be silently ignored.
 * D-SERVER-11: JSON bodies keep JSON.parse's last-value rule.
 */
export function acceptFormBodies (app: FastifyInstance): void {
  if (app.hasContentTypeParser('application/x-www-form-urlencoded')) return
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_request, body, done) => {
    const fields = new Map<string, string>()
    for (const [name, value] of new URLSearchParams(body as string)) {
      if (fields.has(name)) {
        const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name
        done(duplicateField(shown), undefined)
        return
      }
      fields.set(name, value)
    }
    done(null, Object.fromEntries(fields))
  })
}

/** Whether the request is a form post from a browser that wants an HTML answer (no JavaScript). */
export function isBrowserForm (headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  const type = String(headers['content-type'] ?? '')
  return type.startsWith('application/x-www-form-urlencoded') && String(headers.accept ?? '').includes('text/html')
}

/**
 * Refuses form-encoded bodies on this encapsulated instance (415
 * `GATEHOUSE_SERVER_FORM_NOT_ACCEPTED`), before they are parsed: for the
 * JSON-only admin API. A page of another site can post a form without the
 * browser asking anyone, but not JSON, so this holds even where the csrf
 * component is turned off. D-SERVER-42.
 */
export function refuseFormBodies (app: FastifyInstance): void {
  app.addHook('onRequest', function refuseForm (request, _reply, done) {
    const type = String(request.headers['content-type'] ?? '').toLowerCase()
    done(type.startsWith('application/x-www-form-urlencoded') ? formNotAccepted() : undefined)
  })
}
