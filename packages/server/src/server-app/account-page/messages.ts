import type { ResolvedPasswordPolicy } from '@fastify-gatehouse/auth'

/** The message the account page shows after one of its forms: what was done (a status) or what went wrong (an alert). */
export interface AccountMessage {
  readonly kind: 'done' | 'error'
  readonly text: string
}

/** The page's query after a form (`backToAccount`): codes and numbers only. */
export interface AccountQuery {
  readonly done?: unknown
  readonly error?: unknown
  readonly ended?: unknown
  readonly retry?: unknown
  readonly rule?: unknown
}

// A count or a wait: digits only, so nothing else from the URL is shown.
const count = (value: unknown): number | null => typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : null
const sessions = (n: number): string => n === 1 ? '1 other session' : `${n} other sessions`

function doneMessage (code: unknown, ended: number | null): string | undefined {
  switch (code) {
    case 'password-changed':
      return ended === null || ended === 0 ? 'Your password was changed.' : `Your password was changed, and your ${sessions(ended)} ended.`
    case 'session-revoked':
      return 'The session was ended.'
    case 'others-revoked':
      return ended === null ? 'You were signed out everywhere else.' : `You were signed out everywhere else (${sessions(ended)} ended).`
    default:
      return undefined
  }
}

function weakMessage (rule: unknown, policy: ResolvedPasswordPolicy): string {
  switch (rule) {
    case 'min-length': return `The new password must be at least ${policy.minLength} characters long.`
    case 'max-length': return `The new password must be at most ${policy.maxLength} characters long.`
    case 'unprintable': return 'The new password must not contain control characters.'
    case 'common': return 'The new password is one of the most common passwords; choose another.'
    case 'contains-identity': return 'The new password must not contain your identity.'
    default: return 'The new password was refused by the password policy.'
  }
}

function errorMessage (query: AccountQuery, policy: ResolvedPasswordPolicy): string | undefined {
  switch (query.error) {
    case 'missing': return 'Enter your current password and a new one.'
    case 'mismatch': return 'The new password and its confirmation differ.'
    case 'same-password': return 'The new password is your current one; choose another.'
    case 'wrong-password': return 'The current password is wrong.'
    case 'locked': {
      const wait = count(query.retry)
      return wait === null ? 'Too many wrong passwords. Try again later.' : `Too many wrong passwords. Try again in ${wait} seconds.`
    }
    case 'weak': return weakMessage(query.rule, policy)
    case 'not-found': return 'That session had already ended.'
    case 'conflict': return 'Your account was changed at the same time. Sign in again.'
    default: return undefined
  }
}

/**
 * The sentence for the codes of the page's query: fixed sentences and
 * digits, never text from the URL (D-SERVER-01); null for no code or an
 * unknown one.
 */
export function accountMessage (query: AccountQuery, policy: ResolvedPasswordPolicy): AccountMessage | null {
  const error = errorMessage(query, policy)
  if (error !== undefined) return { kind: 'error', text: error }
  const done = doneMessage(query.done, count(query.ended))
  return done === undefined ? null : { kind: 'done', text: done }
}
