// The micro-count worker of scan-limit.ts: one lookup in a SecretTable of
// 1..16 entries, scanned or hashed, for two kinds of secret.
import { randomBytes } from 'node:crypto'
import { SecretTable } from '../../packages/auth/src/secret-table.js'
import { serveCases, type Cases } from './micro.js'

export const MAX_ENTRIES = 16
export const KINDS = {
  // A 256-bit random token as base64url: 43 characters.
  token: (_i: number) => randomBytes(32).toString('base64url'),
  // A Basic credential as the table holds it: base64 of user:password (here 32 characters).
  basic: (i: number) => Buffer.from(`user${String(i).padStart(2, '0')}:correct-horse-${i}`).toString('base64')
} as const

/** `<kind>-<scan|hash>-<entries>`: a lookup of the last entry's secret. */
export function caseName (kind: string, strategy: 'scan' | 'hash', entries: number): string {
  return `${kind}-${strategy}-${entries}`
}

if (process.send !== undefined) {
  const cases: Record<string, () => unknown> = {}
  for (const [kind, make] of Object.entries(KINDS)) {
    for (let n = 1; n <= MAX_ENTRIES; n++) {
      const secrets = Array.from({ length: n }, (_, i) => make(i))
      const entries = secrets.map((s, i) => [s, i] as const)
      // A copy: the candidate arrives as a new string, as from a header.
      const candidate = Buffer.from(secrets[n - 1]!).toString()
      const scanned = new SecretTable(entries, Number.POSITIVE_INFINITY)
      const hashed = new SecretTable(entries, 0)
      cases[caseName(kind, 'scan', n)] = () => scanned.find(candidate)
      cases[caseName(kind, 'hash', n)] = () => hashed.find(candidate)
    }
  }
  serveCases(cases as Cases)
}
