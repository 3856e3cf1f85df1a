import { hasControlCharacter } from './http-syntax.js'

// A path that may be used as a same-origin redirect target: one leading
// slash, not followed by a slash or backslash (which browsers read as
// "another host"), and nothing that browsers strip or reinterpret.
const MAX_LENGTH = 2048
const BASE = 'http://gatehouse.invalid'
// The `_server` app's routes are POST endpoints, JSON APIs and the login
// page itself: after signing in, none is a place to land (a failed
// `POST /_server/login` would send the browser to a 404). Case and
// percent-encoding do not matter: routers may ignore the one, do decode the other.
// D-ERRORS-11: no `_server` path is a `next`; D-ERRORS-16: but for its one
// page to come back to, the account page, given as its canonical path
// without a query (its query only carries the message of a form just posted).
const SERVER_APP = /^\/_server(?:\/|$)/i
const ACCOUNT_PAGE = '/_server/account'

function isSafePath (value: string): boolean {
  return value.startsWith('/') &&
    value[1] !== '/' &&
    !value.includes('\\') &&
    !hasControlCharacter(value)
}

/**
 * Validates a `next` redirect target and returns it in a form safe to put
 * in a `Location` header, or `/` when it is not a same-origin path.
 *
 * Kept: a path that starts with a single `/`, with its query and fragment.
 * Refused (gives `/`): anything that is not a string, longer than 2048
 * characters, with a scheme (`https:`, `javascript:`), protocol-relative
 * (`//host`, `/\host`), with a backslash or a control character — checked
 * both as given and after one percent-decoding, so `/%2F/evil` and
 * `%2F%2Fevil` are refused too. Also gives `/` for a path of the `_server`
 * app (`/_server`, `/_server/…`, in any case or encoding): none is a page
 * to come back to after signing in, except the account page,
 * `/_server/account` (returned as that, without its query).
 */
export function safeNextPath (next: unknown): string {
  if (typeof next !== 'string' || next.length > MAX_LENGTH || !isSafePath(next)) return '/'
  let decoded: string
  try {
    decoded = decodeURIComponent(next)
  } catch {
    return '/'
  }
  if (!isSafePath(decoded)) return '/'
  // Re-serialise through the URL parser so that spaces and non-ASCII are
  // percent-encoded (a raw one would make an invalid header) and dot
  // segments are resolved; a result off our origin is refused.
  const url = new URL(next, BASE)
  if (url.origin !== BASE) return '/'
  const path = url.pathname + url.search + url.hash
  if (!isSafePath(path)) return '/'
  const decodedPathname = decodedPath(url.pathname)
  if (decodedPathname === ACCOUNT_PAGE) return ACCOUNT_PAGE
  if (SERVER_APP.test(decodedPathname)) return '/'
  return path
}

// The path as a router matches it (%2F included: some decode it too).
function decodedPath (pathname: string): string {
  try {
    return decodeURIComponent(pathname)
  } catch {
    return pathname
  }
}
