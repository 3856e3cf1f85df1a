// Secrets never reach a log line: credentials in headers, cookies, API
// keys and JWTs wherever they appear, and the values of secret-named query
// parameters, headers and fields (see secret-name.ts for the naming rule).

import { isSecretName, isSecretParam } from './secret-name.js'

/** What a secret is replaced with in log lines. */
export const REDACTED = '[REDACTED]'

// D-LOGGING-01: API keys keep their public id; credentials keep their scheme; over-redaction is accepted.
const API_KEY = /\b(gak_[0-9a-f]{16}_)[A-Za-z0-9_-]+/g
// A JWS or JWE in compact form: a base64url JSON header (`{"` is `eyJ`),
// then two or four more dot-separated base64url segments (some may be empty).
// D-LOGGING-08: JWT shapes are masked anywhere, raw or percent-encoded.
const JWT = /eyJ[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*){2,4}/g
// A scheme name, the spaces after it, and the word after those (looked at, not consumed).
const CREDENTIAL = /\b(Bearer|Basic|Digest|Negotiate|Token)(\s+)(?=([^\s,;]+))/gi
// Their scheme is kept (`Bearer [REDACTED]`); other secret-named headers are masked whole.
const SCHEME_HEADERS = new Set(['authorization', 'proxy-authorization'])

// D-LOGGING-10: the word after a scheme name is prose, kept, when it is one of
// these words (any case, trailing punctuation aside), or a challenge's
// parameter (`realm="…"`); anything else is taken for a credential and
// masked. A closed list, so a credential that happens to be a word is masked
// unless it is one of these (over-redaction is accepted, D-LOGGING-01).
const PROSE_WORDS = new Set([
  // the schemes themselves (`Basic or Bearer`), and what follows them in sentences
  'basic', 'bearer', 'digest', 'negotiate', 'token', 'tokens', 'credential', 'credentials', 'auth',
  'authentication', 'authorization', 'scheme', 'schemes', 'realm', 'challenge', 'challenges', 'header',
  'headers', 'type', 'prefix', 'format', 'value', 'values', 'string', 'password', 'passwords', 'user',
  'users', 'key', 'keys', 'api', 'jwt', 'jwts', 'session', 'cookie', 'login', 'sign', 'signin', 'access',
  'request', 'requests', 'response', 'verification', 'verifier', 'verifiers', 'check', 'refresh', 'expiry',
  'error', 'errors', 'failure', 'failed', 'refused', 'rejected', 'accepted', 'required', 'expected',
  'missing', 'invalid', 'malformed', 'expired', 'revoked', 'unknown', 'empty', 'given', 'sent', 'only',
  'supported', 'unsupported', 'allowed', 'disabled', 'enabled', 'configured', 'ok',
  // short words of sentences
  'a', 'an', 'the', 'and', 'or', 'nor', 'but', 'is', 'are', 'was', 'were', 'be', 'been', 'not', 'no',
  'with', 'without', 'for', 'to', 'from', 'in', 'on', 'at', 'of', 'by', 'as', 'via', 'if', 'when',
  'then', 'than', 'that', 'this', 'it', 'its', 'has', 'had', 'have', 'must', 'may', 'can', 'cannot',
  'will', 'should', 'does', 'did', 'do', 'here', 'there'
])
const CHALLENGE_PARAM = /^(?:realm|charset|error|error_description|error_uri|scope|max_age|acr_values)=/i
const TRAILING_PUNCTUATION = /[.:!?)\]'"]+$/

// More text after a word on the same line (punctuation aside): a sentence goes on.
const TEXT_FOLLOWS = /^[,;.:!?)\]'"]*[^\S\r\n]+\S/
// Prose words that may end a sentence after a scheme name (`Sign in with
// Bearer credentials`, `Bearer token expired`): words about the scheme and
// the states of a credential, not the nouns a made-up token is spelled with.
const ENDING_WORDS = new Set([
  'credentials', 'scheme', 'schemes', 'authentication', 'authorization', 'challenge', 'challenges', 'header', 'headers',
  'missing', 'invalid', 'malformed', 'expired', 'revoked', 'unknown', 'empty', 'refused', 'rejected', 'accepted',
  'required', 'expected', 'supported', 'unsupported', 'allowed', 'disabled', 'enabled', 'configured', 'failed'
])

/**
 * Whether the word after a scheme name reads as prose or a challenge, not a
 * credential: a challenge's parameter, or a prose word with more text after
 * it on its line (a credential usually ends the header value: `Bearer access`
 * at the end of a line is a token that happens to be a word), or, ending the
 * line, one of the few words about the scheme itself (`credentials`).
 * D-AUTH-80: a prose word that ends the line is taken for a credential.
 */
function isProse (word: string, after: string): boolean {
  if (CHALLENGE_PARAM.test(word)) return true
  const bare = word.replace(TRAILING_PUNCTUATION, '').toLowerCase()
  return PROSE_WORDS.has(bare) && (TEXT_FOLLOWS.test(after) || ENDING_WORDS.has(bare))
}

/** `text` with the credential after each scheme name masked, the words of sentences kept. */
function redactCredentials (text: string): string {
  let out = ''
  let from = 0
  CREDENTIAL.lastIndex = 0
  for (let match = CREDENTIAL.exec(text); match !== null; match = CREDENTIAL.exec(text)) {
    const word = match[3]!
    // Prose: go on right after the spaces, so the word may itself be a scheme name (`Basic or Bearer abc`).
    if (isProse(word, text.slice(CREDENTIAL.lastIndex + word.length))) continue
    out += `${text.slice(from, match.index)}${match[1]!} ${REDACTED}`
    from = CREDENTIAL.lastIndex + word.length
    CREDENTIAL.lastIndex = from
  }
  return from === 0 ? text : out + text.slice(from)
}

/** Masks API keys (keeping their public id), JWTs and `Bearer`/`Basic` credentials in free text; the words of ordinary sentences are kept. */
export function redactText (text: string): string {
  return redactCredentials(text.replace(API_KEY, `$1${REDACTED}`).replace(JWT, REDACTED))
}

function redactCookiePairs (cookie: string): string {
  return cookie.split(';').map((pair) => {
    const eq = pair.indexOf('=')
    return eq === -1 ? ` ${REDACTED}` : `${pair.slice(0, eq)}=${REDACTED}`
  }).join(';')
}

// Set-Cookie: only the value is secret; the attributes help debugging.
function redactSetCookie (setCookie: string): string {
  const eq = setCookie.indexOf('=')
  if (eq === -1) return REDACTED
  const semi = setCookie.indexOf(';', eq)
  return setCookie.slice(0, eq + 1) + REDACTED + (semi === -1 ? '' : setCookie.slice(semi))
}

function redactHeader (name: string, value: string): string {
  if (SCHEME_HEADERS.has(name)) {
    const space = value.indexOf(' ')
    return space === -1 ? REDACTED : `${value.slice(0, space)} ${REDACTED}`
  }
  if (name === 'cookie') return redactCookiePairs(value)
  if (name === 'set-cookie') return redactSetCookie(value)
  if (isSecretName(name)) return REDACTED
  if (name === 'location' || name === 'referer' || name === 'content-location') return redactQuery(redactText(value))
  return redactText(value)
}

/** A copy of `headers` safe to log. */
export function redactHeaders (headers: Readonly<Record<string, unknown>>): Record<string, string | string[]> {
  const safe: Record<string, string | string[]> = {}
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase()
    if (Array.isArray(value)) safe[name] = value.map((v) => redactHeader(name, String(v)))
    else if (value !== undefined) safe[name] = redactHeader(name, String(value))
  }
  return safe
}

function decodeKey (key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '))
  } catch {
    return key
  }
}

// Every API key contains "gak", raw or percent-encoded ("gak%5F"), and
// every JWT "eyJ": paths and values without them (nearly all) are returned
// untouched at the cost of one scan.
// D-LOGGING-08: the fast path leaves ordinary paths untouched.
const MAY_HOLD_TOKEN = /gak|eyJ/i

/** A path segment or query value with API keys and JWTs masked, also when percent-encoded. */
function redactValue (raw: string): string {
  if (!MAY_HOLD_TOKEN.test(raw)) return raw
  const plain = redactText(raw)
  return plain === raw && redactText(decodeKey(raw)) !== decodeKey(raw) ? REDACTED : plain
}

// A URL nested in a parameter (`?next=/cb?token=…`) gets the same treatment
// as the URL itself, a few levels deep; deeper nesting is masked whole.
// D-LOGGING-08: nested URLs redacted three levels deep, then masked whole.
const MAX_NESTING = 3
const HOLDS_PAIR = /=|%3d/i

/** The value of a parameter whose name is not secret. */
function redactParamValue (raw: string, depth: number): string {
  const value = redactValue(raw)
  if (value !== raw || !HOLDS_PAIR.test(raw)) return value
  const decoded = decodeKey(raw)
  if (depth >= MAX_NESTING) return REDACTED
  const nested = redactUrl(decoded, depth + 1)
  if (nested === decoded) return raw
  // Shown as sent when it was sent unencoded; masked whole otherwise.
  return decoded === raw ? nested : REDACTED
}

function redactUrl (url: string, depth: number): string {
  const q = url.indexOf('?')
  const path = redactPath(q === -1 ? url : url.slice(0, q))
  if (q === -1) return depth === 0 || !path.includes('=') ? path : redactPairs(path, depth)
  return `${path}?${redactPairs(url.slice(q + 1), depth)}`
}

function redactPairs (query: string, depth: number): string {
  return query.split('&').map((pair) => {
    const eq = pair.indexOf('=')
    if (eq === -1) return redactValue(pair)
    const key = pair.slice(0, eq)
    return isSecretParam(decodeKey(key)) ? `${key}=${REDACTED}` : `${key}=${redactParamValue(pair.slice(eq + 1), depth)}`
  }).join('&')
}

/**
 * `url` with API keys and JWTs masked in the path and the query, the values
 * of secret-named query parameters masked, and the same done inside
 * parameters that carry a URL or a query of their own (`next=/cb?token=…`);
 * the rest is kept as sent.
 */
export function redactQuery (url: string): string {
  return redactUrl(url, 0)
}

/** A URL path with API keys and JWTs masked (both sometimes travel in paths). */
export function redactPath (path: string): string {
  return MAY_HOLD_TOKEN.test(path) ? path.split('/').map(redactValue).join('/') : path
}

/** `String(value)` that never throws (objects without a prototype, throwing toString). */
export function safeString (value: unknown): string {
  try {
    return String(value)
  } catch {
    return '[unprintable value]'
  }
}

// A copy of a logged value: secret-named fields masked, strings redacted,
// depth and size bounded.
function sanitize (value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value)
  if (value === null || typeof value !== 'object') return value
  // Raw bytes (Node's rawPacket of a malformed request: the whole request
  // head, credentials included) are never logged, only their size.
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`
  if (depth >= 3) return '[…]'
  if (value instanceof Error) return errorForLog(value, depth + 1)
  if (Array.isArray(value)) return value.slice(0, 20).map((item) => sanitize(item, depth + 1))
  const copy: Record<string, unknown> = {}
  let n = 0
  for (const [key, item] of Object.entries(value)) {
    if (n++ >= 50) break
    copy[key] = isSecretName(key) ? REDACTED : sanitize(item, depth + 1)
  }
  return copy
}

/**
 * A copy of a thrown value for pino's `err` key, with secrets masked in its
 * message, stack, `cause` and own fields (recursively, secret-named fields
 * replaced). An error keeps its prototype, so the serializer still reports
 * its class (`type: "TypeError"`).
 * D-LOGGING-05: nested fields and causes are redacted too; D-LOGGING-07: bytes become their size.
 */
export function errorForLog (thrown: unknown, depth = 0): Error {
  if (!(thrown instanceof Error)) return new Error(redactText(safeString(thrown)))
  const safe = Object.create(Object.getPrototypeOf(thrown) as object) as Error
  for (const [key, value] of Object.entries(thrown)) {
    (safe as unknown as Record<string, unknown>)[key] = isSecretName(key) ? REDACTED : sanitize(value, depth + 1)
  }
  const hidden = { enumerable: false, writable: true, configurable: true }
  Object.defineProperty(safe, 'message', { ...hidden, value: redactText(safeString(thrown.message)) })
  if (thrown.stack !== undefined) Object.defineProperty(safe, 'stack', { ...hidden, value: redactText(safeString(thrown.stack)) })
  if (thrown.cause !== undefined && depth < 3) {
    Object.defineProperty(safe, 'cause', { ...hidden, enumerable: true, value: thrown.cause instanceof Error ? errorForLog(thrown.cause, depth + 1) : sanitize(thrown.cause, depth + 1) })
  }
  return safe
}
