import { Avatar, isPlainObject } from '@fastify-gatehouse/core'
import { GATEHOUSE_SESSION_INVALID_LOGIN } from './errors.js'
import { MAX_SESSION_CLAIMS_BYTES } from './session-store.js'

/**
 * The claims `login` keeps: a frozen JSON copy of `value` (what a shared
 * store would give back anyway), or null. Throws
 * `GATEHOUSE_SESSION_INVALID_LOGIN` for anything a session avatar could not
 * carry on every later request: not a plain object, not JSON, larger than
 * {@link MAX_SESSION_CLAIMS_BYTES} or nested deeper than an Avatar takes.
 * D-SESSION-26.
 */
export function loginClaims (value: unknown): Readonly<Record<string, unknown>> | null {
  if (value === null || value === undefined) return null
  if (!isPlainObject(value)) throw new GATEHOUSE_SESSION_INVALID_LOGIN('options.claims must be a plain object of JSON data, or null')
  let json: string
  try {
    json = JSON.stringify(value)
  } catch {
    // A cycle or a BigInt. The message never shows a value: claims may be personal data.
    throw new GATEHOUSE_SESSION_INVALID_LOGIN('options.claims must be JSON data (no cycles, no BigInt)')
  }
  const bytes = Buffer.byteLength(json)
  if (bytes > MAX_SESSION_CLAIMS_BYTES) {
    throw new GATEHOUSE_SESSION_INVALID_LOGIN(`options.claims take ${bytes} bytes as JSON, more than ${MAX_SESSION_CLAIMS_BYTES}`)
  }
  try {
    // The avatar's own check (depth), so a stored session never fails to load.
    return new Avatar('claims', { backend: 'session', claims: JSON.parse(json) as Record<string, unknown> }).claims
  } catch {
    throw new GATEHOUSE_SESSION_INVALID_LOGIN('options.claims are nested too deeply for an avatar (at most 32 levels)')
  }
}
