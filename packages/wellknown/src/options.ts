import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Redirect } from '@fastify-gatehouse/core'

/** What a function document returns: as a document value; `undefined`/`null` answers 404. */
export type WellKnownValue = string | Redirect | Record<string, unknown> | unknown[] | null | undefined

/**
 * A well-known document: a string (sent as `text/plain; charset=utf-8`), a
 * plain object or array (sent as JSON), a `Redirect` from @fastify-gatehouse/core
 * (sent as its status and `Location`), or a function called per request
 * that returns one of those (or sends the reply itself).
 * D-WELLKNOWN-02: a redirect is a `Redirect`, not `{ redirect }` (ambiguous with a JSON document).
 */
export type WellKnownDocument =
  | string
  | Redirect
  | Record<string, unknown>
  | unknown[]
  | ((request: FastifyRequest, reply: FastifyReply) => WellKnownValue | Promise<WellKnownValue>)

/** Options of the wellknown component; every key is optional. */
export interface WellKnownOptions {
  /** Documents by name, served at `/.well-known/<name>`. Default: `{}` (every well-known name is 404). */
  documents?: Readonly<Record<string, WellKnownDocument>>
}

/** {@link WellKnownOptions} with defaults applied. */
export interface ResolvedWellKnownOptions {
  readonly documents: Readonly<Record<string, WellKnownDocument>>
}

export const defaults: ResolvedWellKnownOptions = Object.freeze({ documents: Object.freeze({}) })

export const wellKnownOptionsSchema = Type.Object({
  documents: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
}, { additionalProperties: false })

export function resolveWellKnownOptions (options: WellKnownOptions): ResolvedWellKnownOptions {
  return { documents: options.documents ?? defaults.documents }
}
