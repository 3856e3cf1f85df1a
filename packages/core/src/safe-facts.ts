// Moved here from auth (outside-call.ts) so the session component logs what
// its store throws the same way; auth re-exports safeFacts. D-AUTH-63.

const CLASS_NAME = /^[A-Za-z_$][\w$]{0,63}$/
const CODE = /^[\w.-]{1,64}$/

function read (value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

/** The 4xx or 5xx `statusCode` (or `status`) a thrown value carries, or `undefined`. */
export function thrownStatus (thrown: object): number | undefined {
  const status = read(thrown, 'statusCode') ?? read(thrown, 'status')
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 ? status : undefined
}

/**
 * The facts of a thrown value that are safe to log: its class name, its
 * status and its code (each only when it has the shape of one), and those
 * of its causes; never its message, stack or other fields, where the
 * credential it was given may sit. `TypeError`, `HttpError 503
 * GATEHOUSE_POSTGRES_UNAVAILABLE, caused by DatabaseError 57P01`.
 */
export function safeFacts (thrown: unknown, depth = 0): string {
  if (thrown === null || (typeof thrown !== 'object' && typeof thrown !== 'function')) return thrown === null ? 'null' : `a ${typeof thrown}`
  let name: unknown
  try {
    name = (Object.getPrototypeOf(thrown) as { constructor?: { name?: unknown } } | null)?.constructor?.name
  } catch {}
  const facts = [typeof name === 'string' && CLASS_NAME.test(name) ? name : 'an object']
  const status = thrownStatus(thrown)
  if (status !== undefined) facts.push(String(status))
  const code = read(thrown, 'code')
  if ((typeof code === 'string' && CODE.test(code)) || (typeof code === 'number' && Number.isInteger(code))) facts.push(String(code))
  const cause = read(thrown, 'cause')
  const more = cause !== undefined && depth < 2 ? `, caused by ${safeFacts(cause, depth + 1)}` : ''
  return facts.join(' ') + more
}
