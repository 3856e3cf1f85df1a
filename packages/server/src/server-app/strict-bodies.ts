import type { FastifyInstance, FastifySchemaValidationError, RouteOptions } from 'fastify'
import AjvCompiler from '@fastify/ajv-compiler'
import { GATEHOUSE_SERVER_LOOSE_BODY_SCHEMA, unknownField, validationFailed } from '../errors.js'

/**
 * The body schema of a route that takes none: no body, an empty form, or
 * `{}`; any field is an unknown field.
 */
export const NO_FIELDS = Object.freeze({ type: ['object', 'null'], additionalProperties: false })

// Fastify's defaults, but nothing is dropped or converted: an unknown field
// is an error (removeAdditional), `"true"` is not `true` (coerceTypes), and
// every unknown field is reported (allErrors; bodies are bounded by the body
// limit and each schema here is flat). D-SERVER-08: the root's Ajv is left alone.
const compile = AjvCompiler()({}, {
  customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, allowUnionTypes: true }
})

// Methods whose requests Fastify never parses a body for.
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE'])
const LISTED = 10
const NAME_LENGTH = 64

function quoted (name: string): string {
  return JSON.stringify(name.length > NAME_LENGTH ? `${name.slice(0, NAME_LENGTH)}…` : name)
}

/**
 * `unknown field "expires" in body`; at most ten names, each cut to 64 characters.
 * D-SERVER-08; a browser form gets this plain 400 too, not the login page (D-SERVER-10).
 */
function unknownFields (errors: readonly FastifySchemaValidationError[], dataVar: string): Error | undefined {
  const names: string[] = []
  let where = dataVar
  for (const error of errors) {
    if (error.keyword !== 'additionalProperties') continue
    if (names.length === 0) where = `${dataVar}${error.instancePath}`
    names.push(String(error.params.additionalProperty))
  }
  if (names.length === 0) return undefined
  const listed = names.slice(0, LISTED).map(quoted).join(', ')
  const more = names.length > LISTED ? ` and ${names.length - LISTED} more` : ''
  return unknownField(`unknown field${names.length > 1 ? 's' : ''} ${listed}${more} in ${where}`)
}

/** Fastify's own wording and code (`body/tags must be string`, `FST_ERR_VALIDATION`), for every other schema error. */
function schemaError (errors: readonly FastifySchemaValidationError[], dataVar: string): Error {
  return unknownFields(errors, dataVar) ??
    validationFailed(errors.slice(0, LISTED).map((e) => `${dataVar}${e.instancePath} ${e.message ?? 'is invalid'}`).join(', '))
}

function routeName (route: RouteOptions): string {
  return `${Array.isArray(route.method) ? route.method.join(',') : String(route.method)} ${route.url}`
}

/**
 * Makes every body on this (encapsulated) instance strict, leaving the
 * application's routes to Fastify's defaults: its own validator keeps
 * unknown fields so they are refused with 400 `GATEHOUSE_SERVER_UNKNOWN_FIELD`
 * naming them; a route that can receive a body and declares no body schema
 * gets {@link NO_FIELDS}; a body schema that would let unknown fields through
 * (no top-level `additionalProperties: false`) is a boot error naming the route.
 * Call it before the instance declares routes.
 */
export function strictBodies (app: FastifyInstance): void {
  app.setValidatorCompiler(compile)
  app.setSchemaErrorFormatter(schemaError)
  app.addHook('onRoute', function requireStrictBody (route) {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (methods.every((method) => BODYLESS.has(String(method)))) return
    const body = (route.schema as { body?: unknown } | undefined)?.body
    if (body === undefined) {
      route.schema = { ...route.schema, body: NO_FIELDS }
      return
    }
    if ((body as { additionalProperties?: unknown } | null)?.additionalProperties !== false) {
      throw new GATEHOUSE_SERVER_LOOSE_BODY_SCHEMA(routeName(route))
    }
  })
}
