import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { isPlainObject, Redirect } from '@fastify-gatehouse/core'
import { GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT, GATEHOUSE_WELLKNOWN_NOT_FOUND } from './errors.js'
import type { WellKnownDocument, WellKnownValue } from './options.js'

// RFC 8615 names are one path segment; registered names use these characters.
// D-WELLKNOWN-01: one segment, no ACME-style sub-paths.
const NAME = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,99}$/
const TEXT = 'text/plain; charset=utf-8'
const JSON_TYPE = 'application/json; charset=utf-8'

function isPlainValue (value: unknown): value is Record<string, unknown> | unknown[] {
  return Array.isArray(value) || isPlainObject(value)
}

function describe (value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'object'
  return typeof value
}

// RFC 9116 §2.5: Contact and Expires are required fields.
// D-WELLKNOWN-04: strings only; a function document is not checked.
function checkSecurityTxt (name: string, text: string): void {
  for (const field of ['Contact', 'Expires']) {
    if (!new RegExp(`^${field}:[ \\t]*\\S`, 'im').test(text)) {
      throw new GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT(JSON.stringify(name), `security.txt needs a ${field} field (RFC 9116)`)
    }
  }
  const expires = /^Expires:[ \t]*(\S+)/im.exec(text)![1]!
  if (Number.isNaN(Date.parse(expires))) {
    throw new GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT(JSON.stringify(name), `security.txt Expires ${JSON.stringify(expires)} is not an RFC 3339 date`)
  }
}

function send (reply: FastifyReply, value: WellKnownValue): FastifyReply {
  if (value === undefined || value === null) throw new GATEHOUSE_WELLKNOWN_NOT_FOUND()
  if (typeof value === 'string') return reply.type(TEXT).send(value)
  if (value instanceof Redirect) return reply.code(value.statusCode).header('location', value.location).send()
  return reply.type(JSON_TYPE).send(JSON.stringify(value))
}

/**
 * Checks one `documents` entry and builds its route handler once: fixed
 * documents are serialised here, functions are called per request. A bad
 * name or value throws `GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT` naming it.
 */
export function documentHandler (name: string, document: WellKnownDocument): RouteHandlerMethod {
  const entry = JSON.stringify(name)
  if (!NAME.test(name)) {
    throw new GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT(entry, 'a name is one path segment: letters, digits, ".", "_", "~", "-", not starting with "."')
  }
  if (typeof document === 'string') {
    if (name === 'security.txt') checkSecurityTxt(name, document)
    return async function wellKnownText (_request, reply) { return reply.type(TEXT).send(document) }
  }
  if (document instanceof Redirect) {
    const { statusCode, location } = document
    return async function wellKnownRedirect (_request, reply) { return reply.code(statusCode).header('location', location).send() }
  }
  if (typeof document === 'function') {
    return async function wellKnownFunction (request: FastifyRequest, reply: FastifyReply) {
      const value = await document(request, reply)
      return reply.sent ? reply : send(reply, value)
    }
  }
  if (isPlainValue(document)) {
    let json: string | undefined
    try {
      json = JSON.stringify(document)
    } catch (err) {
      throw new GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT(entry, `cannot be serialised as JSON (${(err as Error).message})`)
    }
    const body = json
    return async function wellKnownJson (_request, reply) { return reply.type(JSON_TYPE).send(body) }
  }
  throw new GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT(entry, `expected a string, an object or array (JSON), a function or a Redirect; got ${describe(document)}`)
}
