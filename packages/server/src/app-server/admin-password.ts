import { passwordPolicyDefaults, passwordProblem, type ResolvedPasswordPolicy } from '@fastify-gatehouse/auth'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'

/**
 * Checks the SUPERADMIN bootstrap password against the password policy,
 * as the identity `admin`; `name` is how the caller gave it
 * (`adminPassword`, `$GATEHOUSE_ADMIN_PASSWORD`). Throws
 * `GATEHOUSE_SERVER_INVALID_OPTIONS` naming it and the rule broken, never
 * showing the value.
 * D-PASSWORD-04: at every boot, even when the stored admin has it already.
 */
export function checkAdminPassword (value: unknown, name: string, policy: ResolvedPasswordPolicy = passwordPolicyDefaults): string {
  if (typeof value !== 'string') throw new GATEHOUSE_SERVER_INVALID_OPTIONS(name, 'must be a string')
  const problem = passwordProblem(value, 'admin', policy)
  if (problem !== null) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(name, `${problem.message} (rule: ${problem.rule})`)
  return value
}
