import type { FastifyInstance, FastifyRequest } from 'fastify'
import type {} from '@fastify/cookie'

/**
 * Builds the test "does this request carry the cookie `name`, or one of the
 * credential cookies other components declared (`declared`, a live set:
 * auth's JWT cookie)?" with the parser the session component reads its
 * cookie with — @fastify/cookie's: `request.cookies` once its onRequest
 * hook ran, `app.parseCookie` otherwise (the app set the hook later or
 * off). One parser for both, so csrf sees the session cookie in every
 * spelling the session reads (`Cookie:  session_id = …`), and sees no name
 * the session would not read.
 * D-CSRF-07 (supersedes D-CSRF-06): one cookie parser for csrf and the session.
 * D-CSRF-09: cookies declared through core as credentials are checked too.
 */
export function cookieTest (app: FastifyInstance, name: string, declared: ReadonlySet<string> = new Set()): (request: FastifyRequest) => boolean {
  return function carriesCookie (request) {
    const header = request.headers.cookie
    if (header === undefined) return false
    const cookies = request.cookies ?? app.parseCookie(header)
    if (cookies[name] !== undefined) return true
    for (const other of declared) {
      if (cookies[other] !== undefined) return true
    }
    return false
  }
}
