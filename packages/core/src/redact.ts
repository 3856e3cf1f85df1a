// Secrets never reach a log line: credentials in headers, cookies, API
// keys wherever they appear, and secret-looking query parameters.

/** What a secret is replaced with in log lines. */
export const REDACTED = '[REDACTED]'

const API_KEY = /\b(gak_[0-9a-f]{16}_)[A-Za-z0-9_-]+/g
const CREDENTIAL = /\b(Bearer|Basic|Digest|Negotiate|Token)\s+[^\s,;]+/gi
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'x-auth-token'])
const SECRET_PARAM = /token|secret|passw|api_?key|^key$|^code$|^state$|session|^sid$|^auth/i

/** Masks API keys (keeping their public id) and `Bearer`/`Basic` credentials in free text. */
export function redactText (text: string): string {
  return text.replace(API_KEY, `$1${REDACTED}`).replace(CREDENTIAL, `$1 ${REDACTED}`)
}

function redactCookiePairs (cookie: string): string {
  return cookie.split(';').map((pair) => {
    const eq = pair.indexOf('=')
    return eq === -1 ? pair : `${pair.slice(0, eq)}=${REDACTED}`
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

/** `url` with the values of secret-looking query parameters masked (the rest kept as sent). */
export function redactQuery (url: string): string {
  const q = url.indexOf('?')
  if (q === -1) return url
  const pairs = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=')
    if (eq === -1) return redactText(pair)
    const key = pair.slice(0, eq)
    return SECRET_PARAM.test(decodeKey(key)) ? `${key}=${REDACTED}` : `${key}=${redactText(pair.slice(eq + 1))}`
  })
  return `${url.slice(0, q)}?${pairs.join('&')}`
}

/**
 * A copy of a thrown value for pino's `err` key, with secrets masked in its
 * message, stack and own string fields. An error keeps its prototype, so
 * the serializer still reports its class (`type: "TypeError"`).
 */
export function errorForLog (thrown: unknown): Error {
  if (!(thrown instanceof Error)) return new Error(redactText(String(thrown)))
  const safe = Object.create(Object.getPrototypeOf(thrown) as object) as Error
  for (const [key, value] of Object.entries(thrown)) {
    (safe as unknown as Record<string, unknown>)[key] = typeof value === 'string' ? redactText(value) : value
  }
  Object.defineProperty(safe, 'message', { value: redactText(thrown.message), enumerable: false, writable: true, configurable: true })
  if (thrown.stack !== undefined) {
    Object.defineProperty(safe, 'stack', { value: redactText(thrown.stack), enumerable: false, writable: true, configurable: true })
  }
  return safe
}
