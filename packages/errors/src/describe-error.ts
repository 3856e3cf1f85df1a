import { STATUS_CODES } from 'node:http'
import { HttpError, responseHeadersOf } from '@fastify-gatehouse/core'
import { GATEHOUSE_ERRORS_INTERNAL } from './errors.js'

// D-ERRORS-18: a hidden 5xx is coded, never with the thrown error's own code (it may name internals).
const INTERNAL = new GATEHOUSE_ERRORS_INTERNAL().code

/** What the caller is told about an error. */
export interface ErrorDescription {
  readonly statusCode: number
  readonly error: string
  readonly message: string
  readonly code: string | undefined
  readonly headers: Readonly<Record<string, unknown>>
  /** The error's message is written for the caller (4xx, an HttpError, or an error that sets `expose`). */
  readonly exposed: boolean
}

function statusOf (error: { statusCode?: unknown, status?: unknown }): number {
  const status = error.statusCode ?? error.status
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 ? status : 500
}

/**
 * Decides status, message, code and headers for anything thrown. A 5xx
 * message is replaced by the status text unless the error is an
 * {@link HttpError} or sets `expose` (its detail is written for the
 * caller), and its code
 * by `GATEHOUSE_ERRORS_INTERNAL`; values that are not objects become a
 * plain 500.
 */
export function describeError (thrown: unknown): ErrorDescription {
  const error = (thrown !== null && typeof thrown === 'object' ? thrown : {}) as {
    statusCode?: unknown, status?: unknown, message?: unknown, code?: unknown, headers?: unknown, expose?: unknown
  }
  const statusCode = statusOf(error)
  // D-ERRORS-01: the message is shown for 4xx and HttpError, never for other 5xx.
  const exposed = thrown instanceof HttpError || error.expose === true || statusCode < 500
  const statusText = STATUS_CODES[statusCode] ?? 'Error'
  const message = exposed && typeof error.message === 'string' && error.message !== '' ? error.message : statusText
  const code = exposed ? (typeof error.code === 'string' ? error.code : undefined) : INTERNAL
  // A coded error's headers reach the response, as in Fastify's own handler;
  // an upstream client error's are not ours to forward (D-ERRORS-20).
  const headers = responseHeadersOf(thrown)
  return { statusCode, error: statusText, message, code, headers, exposed }
}
