import { readFileSync } from 'node:fs'
import { Type } from '@sinclair/typebox'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'

// What a new password must be (OWASP ASVS 5.0 §6.2): long enough, not one
// of the most common passwords, not the identity; any composition, any
// printable Unicode, spaces included, and checked exactly as given (no
// trimming, no case change, no truncation). Applied where a password is
// set, never at sign-in: a weaker password set before keeps working until
// it is changed (D-PASSWORD-03, D-PASSWORD-04).

/** Options of the password policy; every key is optional. */
export interface PasswordPolicy {
  /** Fewest characters (Unicode code points). Default: 8 (ASVS 6.2.1's floor; 15 is recommended). Between 8 and 64. */
  minLength?: number
  /** Most characters (code points). Default: 256. Between 64 (ASVS 6.2.9) and 512. */
  maxLength?: number
}

/** {@link PasswordPolicy} with the defaults applied. */
export interface ResolvedPasswordPolicy {
  readonly minLength: number
  readonly maxLength: number
}

// Marks a policy resolvePasswordPolicy made: passwordProblem takes it as it
// is and resolves any other object first (a plain `{ minLength: 12 }` from
// JavaScript), so a missing bound is the default, never "no bound". The mark
// is the object's own (non-enumerable, so a copy is not marked and
// comparisons and JSON see only the two bounds); no registry holds it.
// D-PASSWORD-11.
const kResolvedPolicy = Symbol('gatehouse.resolvedPasswordPolicy')

function resolvedPolicy (minLength: number, maxLength: number): ResolvedPasswordPolicy {
  const policy = { minLength, maxLength }
  Object.defineProperty(policy, kResolvedPolicy, { value: true })
  return Object.freeze(policy)
}

const isResolvedPolicy = (policy: unknown): policy is ResolvedPasswordPolicy =>
  typeof policy === 'object' && policy !== null && (policy as Record<symbol, unknown>)[kResolvedPolicy] === true

/** The defaults of {@link PasswordPolicy}. */
export const passwordPolicyDefaults: ResolvedPasswordPolicy = resolvedPolicy(8, 256)

/**
 * The rule a password broke: too short, too long, a character that is not
 * printable (a control character or a lone surrogate), one of the common
 * passwords, or the identity in it.
 */
export type PasswordRule = 'min-length' | 'max-length' | 'unprintable' | 'common' | 'contains-identity'

/** Why a password is refused: the rule and a sentence for the person choosing it (never the password). */
export interface PasswordProblem {
  readonly rule: PasswordRule
  readonly message: string
}

// Bounds of the options. The top of maxLength keeps every allowed password
// under the 1024 UTF-16 units the login endpoint reads (two per code point at most).
// D-PASSWORD-02.
const MIN_LENGTH_FLOOR = 8
const MIN_LENGTH_TOP = 64
const MAX_LENGTH_FLOOR = 64
const MAX_LENGTH_TOP = 512

const KNOWN = new Set(['minLength', 'maxLength'])

/**
 * Schema of {@link PasswordPolicy} with the same bounds, for a config file
 * (`server_app.password_policy`), whose loader names a bad key as written
 * (`min_length`). {@link resolvePasswordPolicy} checks the same.
 */
export const passwordPolicySchema = Type.Object({
  minLength: Type.Optional(Type.Integer({ minimum: MIN_LENGTH_FLOOR, maximum: MIN_LENGTH_TOP })),
  maxLength: Type.Optional(Type.Integer({ minimum: MAX_LENGTH_FLOOR, maximum: MAX_LENGTH_TOP }))
}, { additionalProperties: false })

function lengthOption (value: unknown, name: string, floor: number, top: number, where: string): number {
  if (!Number.isInteger(value) || (value as number) < floor || (value as number) > top) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG(`${where}.${name}`, `must be a whole number from ${floor} to ${top}, got ${JSON.stringify(value)}`)
  }
  return value as number
}

/**
 * Applies the defaults and checks the bounds; throws
 * `GATEHOUSE_AUTH_INVALID_CONFIG` naming `where.<key>` for an unknown key or
 * a value out of bounds (a minimum under 8 is refused: ASVS 6.2.1).
 */
export function resolvePasswordPolicy (policy: PasswordPolicy | undefined = {}, where = 'passwordPolicy'): ResolvedPasswordPolicy {
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy)) {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'must be an object such as { minLength: 12 }')
  }
  for (const key of Object.keys(policy)) {
    if (!KNOWN.has(key)) throw new GATEHOUSE_AUTH_INVALID_CONFIG(`${where}.${key}`, 'unknown option (known: minLength, maxLength)')
  }
  const minLength = policy.minLength === undefined ? passwordPolicyDefaults.minLength : lengthOption(policy.minLength, 'minLength', MIN_LENGTH_FLOOR, MIN_LENGTH_TOP, where)
  const maxLength = policy.maxLength === undefined ? passwordPolicyDefaults.maxLength : lengthOption(policy.maxLength, 'maxLength', MAX_LENGTH_FLOOR, MAX_LENGTH_TOP, where)
  if (maxLength < minLength) throw new GATEHOUSE_AUTH_INVALID_CONFIG(`${where}.maxLength`, `must not be below minLength (${minLength})`)
  return resolvedPolicy(minLength, maxLength)
}

let common: ReadonlySet<string> | undefined

/**
 * The shipped list (data/common-passwords.txt: the 17 950 passwords of 8
 * or more characters among the 49 233 most common, lower-cased), read once,
 * on first use.
 * D-PASSWORD-01.
 */
function commonPasswords (): ReadonlySet<string> {
  common ??= new Set(readFileSync(new URL('../data/common-passwords.txt', import.meta.url), 'utf8').split('\n').filter((line) => line !== ''))
  return common
}

/**
 * Whether `password` is one of the common passwords, in any letter case.
 * D-PASSWORD-05.
 */
export function isCommonPassword (password: string): boolean {
  const list = commonPasswords()
  return list.has(password) || list.has(password.toLowerCase())
}

// C0 and C1 controls, DEL, and UTF-16 halves without their other half
// (they cannot be stored or typed back the same). D-PASSWORD-07.
// eslint-disable-next-line no-control-regex -- the control characters are the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * The words of an identity that a password must not contain: the identity
 * itself and, for an email address, the part before the `@`; only those of
 * 3 characters or more (a password may well contain "jo").
 * D-PASSWORD-06.
 */
function identityWords (identity: string): string[] {
  const lower = identity.toLowerCase()
  const words = [lower]
  const at = lower.indexOf('@')
  if (at > 0) words.push(lower.slice(0, at))
  return words.filter((word) => [...word].length >= 3)
}

/**
 * What is wrong with `password` as a new password of `identity`, or null
 * when the policy accepts it. The rules are checked in a fixed order
 * (length, printable, identity, common), and the first one broken is named.
 */
export function passwordProblem (password: string, identity: string, policy: ResolvedPasswordPolicy = passwordPolicyDefaults): PasswordProblem | null {
  if (typeof password !== 'string') return { rule: 'min-length', message: 'The password must be a string.' }
  const { minLength, maxLength } = isResolvedPolicy(policy) ? policy : resolvePasswordPolicy(policy)
  // Judged as it is hashed (NFC: D-PASSWORD-09), so a decomposed "é" does
  // not count twice; the length and the words are judged without the
  // invisible format characters (zero-width space, soft hyphen, BOM…), so
  // "password1" with one inside is still password1 and eight of them are
  // not eight characters.
  const hashed = password.normalize('NFC')
  const visible = hashed.replace(INVISIBLE, '')
  if ([...visible].length < minLength) return { rule: 'min-length', message: `The password must be at least ${minLength} characters long.` }
  if ([...hashed].length > maxLength) return { rule: 'max-length', message: `The password must be at most ${maxLength} characters long.` }
  if (UNPRINTABLE.test(password)) return { rule: 'unprintable', message: 'The password must not contain control characters.' }
  const lower = visible.toLowerCase()
  if (typeof identity === 'string' && (lower === identity.toLowerCase() || identityWords(identity).some((word) => lower.includes(word)))) {
    return { rule: 'contains-identity', message: 'The password must not contain the identity.' }
  }
  if (isCommonPassword(visible)) return { rule: 'common', message: 'The password is one of the most common passwords; choose another.' }
  return null
}

// Unicode's format characters (category Cf): they take no space when shown.
const INVISIBLE = /\p{Cf}/gu
