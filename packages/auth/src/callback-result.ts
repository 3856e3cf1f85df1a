import { Avatar, invalidTag, isThenable, parseTags } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_CALLBACK_FAILED } from './errors.js'
import { callOut } from './outside-call.js'

/** What a `basic.validate` or `bearer.auth` function may answer: the caller, their tags, or null (refused). */
export type CallbackAnswer = Avatar | string | readonly string[] | null

const KEEP_MESSAGE = Object.freeze({ keepMessage: true })

/**
 * Calls `fn` (a function of the options, named `call`) within `ms` and
 * turns what it answers into an Avatar or null. An `HttpError` it throws
 * keeps its status, code and message; anything else thrown is a 500
 * `GATEHOUSE_AUTH_CALLBACK_FAILED`, no answer within `ms` a 503
 * `GATEHOUSE_AUTH_CALLBACK_TIMEOUT` (see `callOut`: what was thrown is never
 * logged as it is). An answer of another type, or tags outside the rule
 * alphabet, is a 500 `GATEHOUSE_AUTH_CALLBACK_FAILED` too.
 * D-AUTH-45, D-AUTH-62, D-AUTH-63.
 */
export function callCallback (
  call: string,
  ms: number,
  fn: () => unknown,
  toAvatar: (tags: readonly string[]) => Avatar
): Avatar | null | Promise<Avatar | null> {
  // D-AUTH-45: an HttpError of the app's function keeps the message the app wrote for the caller.
  const answer = callOut(call, ms, fn, KEEP_MESSAGE)
  if (isThenable(answer)) return Promise.resolve(answer).then((settled) => avatarOf(call, settled, toAvatar))
  return avatarOf(call, answer, toAvatar)
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
