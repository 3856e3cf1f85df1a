import { Avatar, HttpError, invalidTag, isThenable, parseTags } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_CALLBACK_FAILED } from './errors.js'

/** What a `basic.validate` or `bearer.auth` function may answer: the caller, their tags, or null (refused). */
export type CallbackAnswer = Avatar | string | readonly string[] | null

/**
 * An error thrown by a function of yours, made safe to log: its message and
 * stack with every occurrence of `secret` (the password, the token)
 * replaced, its `code` kept, its other fields (which a driver may fill with
 * the values it was given) dropped.
 */
export function withoutSecret (thrown: unknown, secret: string): Error {
  const scrub = (text: string): string => secret === '' ? text : text.split(secret).join('[REDACTED]')
  const original = thrown instanceof Error ? thrown : new Error(typeof thrown === 'string' ? thrown : 'a value that is not an Error')
  const safe = new Error(scrub(original.message))
  safe.name = original.name
  safe.stack = original.stack === undefined ? undefined : scrub(original.stack)
  const code = (original as { code?: unknown }).code
  if (typeof code === 'string') Object.defineProperty(safe, 'code', { value: code, enumerable: true })
  return safe
}

/**
 * A store's own error (it keeps its class and status: a store outage stays a
 * 503), with every occurrence of `secret` in its message and stack replaced,
 * and the fields a driver may fill with the values it was given (`parameters`,
 * `params`, `values`) dropped. Returns `thrown` itself.
 */
export function scrubSecret (thrown: unknown, secret: string): unknown {
  if (!(thrown instanceof Error) || secret === '') return thrown
  const scrub = (text: string): string => text.split(secret).join('[REDACTED]')
  thrown.message = scrub(thrown.message)
  if (thrown.stack !== undefined) thrown.stack = scrub(thrown.stack)
  for (const field of ['parameters', 'params', 'values']) delete (thrown as unknown as Record<string, unknown>)[field]
  return thrown
}

/**
 * Calls `fn` (a function of the options, named `where`) and turns what it
 * answers into an Avatar or null. An `HttpError` it throws passes through
 * (its status and message are yours to choose); anything else thrown, or an
 * answer of another type, or tags outside the rule alphabet, is a 500
 * `GATEHOUSE_AUTH_CALLBACK_FAILED` whose cause never holds `secret`.
 * D-AUTH-45.
 */
export function callCallback (
  where: string,
  secret: string,
  fn: () => unknown,
  toAvatar: (tags: readonly string[]) => Avatar
): Avatar | null | Promise<Avatar | null> {
  const fail = (err: unknown): never => {
    if (err instanceof HttpError) throw err
    throw new GATEHOUSE_AUTH_CALLBACK_FAILED(where, 'threw; the error is logged as the cause, without the credential', { cause: withoutSecret(err, secret) })
  }
  let answer: unknown
  try {
    answer = fn()
  } catch (err) {
    return fail(err)
  }
  if (isThenable(answer)) return Promise.resolve(answer).then((settled) => avatarOf(where, settled, toAvatar), fail)
  return avatarOf(where, answer, toAvatar)
}

function avatarOf (where: string, answer: unknown, toAvatar: (tags: readonly string[]) => Avatar): Avatar | null {
  if (answer === null) return null
  if (answer instanceof Avatar) return answer
  if (typeof answer === 'string' || (Array.isArray(answer) && answer.every((tag) => typeof tag === 'string'))) {
    const tags = parseTags(answer as string | string[])
    if (invalidTag(tags) === undefined) return toAvatar(tags)
    throw new GATEHOUSE_AUTH_CALLBACK_FAILED(where, 'answered a tag with characters other than letters, digits and _ . : -')
  }
  const shown = answer === undefined ? 'undefined' : typeof answer === 'boolean' ? String(answer) : `a ${typeof answer}`
  throw new GATEHOUSE_AUTH_CALLBACK_FAILED(where, `answered ${shown}: expected an Avatar, tags (a string or a list) or null`)
}
