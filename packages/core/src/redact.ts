// Secrets never reach a log line: credentials in headers, cookies, API
// keys wherever they appear, and secret-looking query parameters.

/** What a secret is replaced with in log lines. */
export const REDACTED = '[REDACTED]'

const API_KEY = /\b(gak_[0-9a-f]{16}_)[A-Za-z0-9_-]+/g
const CREDENTIAL = /\b(Bearer|Basic|Digest|Negotiate|Token)\s+[^\s,;]+/gi
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'x-auth-token'])
// Other headers whose names say they carry a secret.
const SECRET_HEADER_NAME = /token|secret|api-?key|passw|credential|signature/i
const SECRET_PARAM = /token|secret|passw|api_?key|^key$|^code$|^code_verifier$|^state$|^nonce$|session|^sid$|^auth|jwt|sig(nature)?$|assertion|credential/i
// Keys of logged objects that hold secrets (nested error fields, request configs).
const SECRET_FIELD = /authorization|cookie|token|secret|passw|api-?_?key|credential|signature/i

/** Masks API keys (keeping their public id) and `Bearer`/`Basic` credentials in free text. */
export function redactText (text: string): string {
  return text.replace(API_KEY, `$1${REDACTED}`).replace(CREDENTIAL, `$1 ${REDACTED}`)
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
  if (SECRET_HEADERS.has(name)) {
    const space = value.indexOf(' ')
    return space === -1 ? REDACTED : `${value.slice(0, space)} ${REDACTED}`
  }
  if (name === 'cookie') return redactCookiePairs(value)
  if (name === 'set-cookie') return redactSetCookie(value)
  if (SECRET_HEADER_NAME.test(name)) return REDACTED
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

/** A path or query value with API keys masked, also when percent-encoded. */
function redactValue (raw: string): string {
  if (!MAY_HOLD_KEY.test(raw)) return raw
  const plain = redactText(raw)
  return plain === raw && redactText(decodeKey(raw)) !== decodeKey(raw) ? REDACTED : plain
}

/**
 * `url` with API keys masked in the path and the values of secret-looking
 * query parameters masked (the rest kept as sent).
 */
export function redactQuery (url: string): string {
  const q = url.indexOf('?')
  if (q === -1) return redactPath(url)
  const pairs = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=')
    if (eq === -1) return redactValue(pair)
    const key = pair.slice(0, eq)
    return SECRET_PARAM.test(decodeKey(key)) ? `${key}=${REDACTED}` : `${key}=${redactValue(pair.slice(eq + 1))}`
  })
  return `${redactPath(url.slice(0, q))}?${pairs.join('&')}`
}

// Every API key contains "gak", raw or percent-encoded ("gak%5F"): paths
// without it (nearly all) are returned untouched at the cost of one scan.
const MAY_HOLD_KEY = /gak/i

/** A URL path with API keys masked (keys sometimes travel in paths). */
export function redactPath (path: string): string {
  return MAY_HOLD_KEY.test(path) ? path.split('/').map(redactValue).join('/') : path
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
  if (depth >= 3) return '[…]'
  if (value instanceof Error) return errorForLog(value, depth + 1)
  if (Array.isArray(value)) return value.slice(0, 20).map((item) => sanitize(item, depth + 1))
  const copy: Record<string, unknown> = {}
  let n = 0
  for (const [key, item] of Object.entries(value)) {
    if (n++ >= 50) break
    copy[key] = SECRET_FIELD.test(key) ? REDACTED : sanitize(item, depth + 1)
  }
  return copy
}

/**
 * A copy of a thrown value for pino's `err` key, with secrets masked in its
 * message, stack, `cause` and own fields (recursively, secret-named fields
 * replaced). An error keeps its prototype, so the serializer still reports
 * its class (`type: "TypeError"`).
 */
export function errorForLog (thrown: unknown, depth = 0): Error {
  if (!(thrown instanceof Error)) return new Error(redactText(safeString(thrown)))
  const safe = Object.create(Object.getPrototypeOf(thrown) as object) as Error
  for (const [key, value] of Object.entries(thrown)) {
    (safe as unknown as Record<string, unknown>)[key] = SECRET_FIELD.test(key) ? REDACTED : sanitize(value, depth + 1)
  }
  const hidden = { enumerable: false, writable: true, configurable: true }
  Object.defineProperty(safe, 'message', { ...hidden, value: redactText(safeString(thrown.message)) })
  if (thrown.stack !== undefined) Object.defineProperty(safe, 'stack', { ...hidden, value: redactText(safeString(thrown.stack)) })
  if (thrown.cause !== undefined && depth < 3) {
    Object.defineProperty(safe, 'cause', { ...hidden, enumerable: true, value: thrown.cause instanceof Error ? errorForLog(thrown.cause, depth + 1) : sanitize(thrown.cause, depth + 1) })
  }
  return safe
}
