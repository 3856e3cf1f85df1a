import type { FastifyInstance, FastifyRequest } from 'fastify'
import type {} from '@fastify/cookie'

/**
 * Builds the test "does this request carry a cookie called `name`?" with the
 * parser the session component reads its cookie with — @fastify/cookie's:
 * `request.cookies` once its onRequest hook ran, `app.parseCookie` otherwise
 * (the app set the hook later or off). One parser for both, so csrf sees the
 * session cookie in every spelling the session reads (`Cookie:  session_id
 * = …`), and sees no name the session would not read.
 * D-CSRF-07 (supersedes D-CSRF-06): one cookie parser for csrf and the session.
 */
export function cookieTest (app: FastifyInstance, name: string): (request: FastifyRequest) => boolean {
  return function carriesCookie (request) {
    const header = request.headers.cookie
    if (header === undefined) return false
    return (request.cookies ?? app.parseCookie(header))[name] !== undefined
  }
}
